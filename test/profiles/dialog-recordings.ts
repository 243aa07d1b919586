// The dialog recordings of the question tests: each recording's frames and profile, the questions
// its dialog frames read as, and the highlight captures with escapes.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { getProfile } from '../../src/profiles/index.js';
import { stripEscapes } from '../../src/profiles/internal/highlight.js';
import type { ReadQuestion } from '../../src/schemas/signals.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

export interface Recording {
  tool: string;
  toolVersion?: string;
  frames: string[];
}

export function load(path: string): Recording {
  const lines = readFileSync(`${FIXTURES}${path}.jsonl`, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map(
      (l) => JSON.parse(l) as { type: string; text?: string; tool?: string; toolVersion?: string },
    );
  const header = lines[0]!;
  return {
    tool: header.tool!,
    ...(header.toolVersion ? { toolVersion: header.toolVersion } : {}),
    frames: lines.filter((l) => l.type === 'frame').map((l) => l.text!),
  };
}

export const parserOf = (r: Recording) => getProfile(r.tool, r.toolVersion);

/** Every distinct question the recording's dialog frames read as, in order. */
export function questionsOf(path: string): ReadQuestion[] {
  const r = load(path);
  const p = parserOf(r);
  const out = new Map<string, ReadQuestion>();
  for (const text of r.frames) {
    const result = p.parse({ text });
    if (result.signals.blockedPrompt === null) {
      expect(result.question ?? null).toBeNull();
      continue;
    }
    // Every dialog frame carries a question: recognised, or `other` with nothing to answer.
    expect(result.question, `${path}: a dialog without a question`).toBeTruthy();
    out.set(result.question!.id, result.question!);
  }
  return [...out.values()];
}

/** The first dialog frame of a recording, and its profile. */
export function firstDialog(path: string) {
  const r = load(path);
  const p = parserOf(r);
  const text = r.frames.find((t) => p.parse({ text: t }).question?.kind !== undefined)!;
  return { p, text, question: p.parse({ text }).question! };
}

export const short = (q: ReadQuestion) => ({
  kind: q.kind,
  subject: q.subject,
  choices: q.choices.map((c) => `${c.id}=${c.keys.join('+')}`),
});

// The selection is colour only: read without escapes, allowing has no keys yet.
export const OPENCODE = (file: string) => ({
  kind: 'tool_permission',
  subject: `touch ${file}`,
  choices: ['allow_once=', 'allow_always=', 'deny=Escape'],
});

/** A capture with escapes from `test/fixtures/<tool>/highlight/`, and its plain text. */
export function colourScreen(tool: string, name: string): { text: string; ansi: string } {
  const ansi = readFileSync(`${FIXTURES}${tool}/highlight/${name}.ansi`, 'utf8');
  const text = stripEscapes(ansi)
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .trimEnd();
  return { text, ansi };
}

/** The choices that carry keys, as `id=keys`. */
export const keyed = (q: ReadQuestion) =>
  q.choices.filter((c) => c.keys.length > 0).map((c) => `${c.id}=${c.keys.join('+')}`);
