import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  parseRecordSubject,
  parseStateKey,
  qualify,
  recordFilter,
  recordSubject,
  stateKey,
  unqualify,
} from '../../src/fleet/names.js';
import { HostId, TerminalId } from '../../src/schemas/operations/index.js';

const host = fc.stringMatching(/^[A-Za-z0-9_-]{1,16}$/);
const terminal = fc.stringMatching(/^[A-Za-z0-9._-]{1,20}$/);

describe('fleet subjects and keys', () => {
  it('a terminal id with dots keeps its subject tokens and KV key, and comes back unchanged', () => {
    fc.assert(
      fc.property(
        host,
        terminal,
        fc.constantFrom('state', 'turn.started', 'checkpoint'),
        (h, t, kind) => {
          const subject = recordSubject(h, t, kind);
          expect(subject.split('.').slice(0, 3)).toEqual(['paneward', h, expect.any(String)]);
          expect(subject.split('.')).toHaveLength(3 + kind.split('.').length);
          expect(parseRecordSubject(subject)).toEqual({ host: h, terminalId: t });
          // The per-terminal filter matches this subject only by its first three tokens.
          expect(recordFilter(h, t).split('.').slice(0, 3)).toEqual(subject.split('.').slice(0, 3));
          expect(parseStateKey(stateKey(h, t))).toEqual({ host: h, terminalId: t });
          expect(stateKey(h, t).split('.')).toHaveLength(2);
          expect(unqualify(qualify(h, t))).toEqual({ host: h, terminalId: t });
          expect(TerminalId.safeParse(qualify(h, t)).success).toBe(true);
        },
      ),
    );
    expect(parseRecordSubject(recordSubject('h', null, 'supervisor.started'))).toEqual({
      host: 'h',
      terminalId: null,
    });
  });

  it('a host id names one token; malformed names are refused', () => {
    for (const bad of ['', 'a.b', 'a/b', 'a b', '*', '>', 'x'.repeat(65)]) {
      expect(HostId.safeParse(bad).success, bad).toBe(false);
    }
    for (const bad of ['a/b/c', '/t1', 'h/', 'a.b/t1']) {
      expect(TerminalId.safeParse(bad).success, bad).toBe(false);
    }
    expect(parseRecordSubject('other.h.t.state')).toBeNull();
    expect(parseRecordSubject('paneward.h.t')).toBeNull();
    expect(unqualify('t1')).toBeNull();
  });
});
