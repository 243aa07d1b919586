/** The canary's run: the registry, the platform check, the install, the live suite, per CLI. */
import { existsSync } from 'node:fs';
import { isVerifiedVersion } from '../../../src/profiles/index.js';
import { LIVE_UNSUPPORTED, liveSuiteOf, type PinnedCli } from './catalog.js';
import { binIn, installRelease, pinnedBin, scratchOf, type InstallResult } from './install.js';
import { runLiveSuite } from './live.js';
import {
  currentHost,
  hostName,
  platformNeed,
  platformVerdict,
  type Host,
  type PlatformVerdict,
} from './platform.js';
import { inPool, npmView } from './registry.js';
import { rowOf, type DriftFacts, type DriftRow, type LiveResult } from './row.js';

export interface DriftOptions {
  root: string;
  /** Use what is installed already; install nothing. */
  skipInstall: boolean;
  /** Also run the live suite of a CLI whose newest release is verified already. */
  allLive: boolean;
  /** Frame sources the live suites run on (`control`, `polling` or both). */
  sources: string;
  liveTimeoutMs: number;
  /** Only the live tests whose names match this pattern (vitest's `-t`). */
  tests?: string;
  host?: Host;
  /** Progress lines (stderr). */
  log: (line: string) => void;
  /** The suites' own output, when wanted. */
  verbose?: boolean;
}

/** Whether `version` of `pin` has a build for `host`, asking the registry. */
async function checkPlatform(
  view: Parameters<typeof platformNeed>[0],
  host: Host,
): Promise<PlatformVerdict> {
  const need = platformNeed(view, host);
  const found: Record<string, string | null> = {};
  if (need.kind === 'one_of') {
    await Promise.all(
      need.packages.map(async (p) => {
        const a = await npmView(p.spec);
        found[p.spec] = a.found ? a.view.version : null;
      }),
    );
  }
  return platformVerdict(need, found, host);
}

/** The registry part of a row: newest version, verified, platform. */
async function askRegistry(pin: PinnedCli, host: Host): Promise<DriftFacts> {
  const base = { id: pin.id, pkg: pin.pkg, pinned: pin.pinned };
  const skipped: LiveResult = { status: 'skipped', why: 'not reached' };
  const answer = await npmView(pin.pkg);
  if (!answer.found) {
    return {
      ...base,
      newest: null,
      registryError: answer.why,
      verified: false,
      platform: null,
      install: null,
      live: { status: 'skipped', why: 'the registry gave no version' },
      unrecognised: null,
    };
  }
  const newest = answer.view.version;
  return {
    ...base,
    newest,
    verified: isVerifiedVersion(pin.id, newest),
    platform: await checkPlatform(answer.view, host),
    install: null,
    live: skipped,
    unrecognised: null,
  };
}

/** Where the newest release is (installing it unless told not to), or why it is not. */
async function installNewest(
  pin: PinnedCli,
  newest: string,
  o: DriftOptions,
): Promise<InstallResult | { status: 'none'; why: string }> {
  const dir = scratchOf(o.root, pin.id, newest);
  const pinned = pinnedBin(o.root, pin.id, pin.bin);
  if (existsSync(binIn(dir, pin.bin))) return { status: 'present', bin: binIn(dir, pin.bin) };
  // The pinned release is already installed where install-agent.sh put it.
  if (newest === pin.pinned && existsSync(pinned)) return { status: 'present', bin: pinned };
  if (o.skipInstall) return { status: 'none', why: 'not installed (--skip-install)' };
  o.log(`${pin.id}: installing ${pin.pkg}@${newest} into ${dir}`);
  return installRelease(dir, pin.pkg, newest, pin.bin);
}

/** One CLI from the registry's answer to its row. */
async function finish(
  pin: PinnedCli,
  f: DriftFacts,
  o: DriftOptions,
  host: Host,
): Promise<DriftRow> {
  if (f.newest === null) return rowOf(f);
  if (f.verified && !o.allLive) {
    return rowOf({
      ...f,
      live: {
        status: 'skipped',
        why: 'verified: the regular live suite covers it (--all-live runs it)',
      },
    });
  }
  if (f.platform && !f.platform.ok) {
    return rowOf({ ...f, live: { status: 'skipped', why: `no ${hostName(host)} build` } });
  }
  const installed = await installNewest(pin, f.newest, o);
  if (installed.status === 'none')
    return rowOf({ ...f, live: { status: 'skipped', why: installed.why } });
  if (installed.status === 'failed') {
    return rowOf({ ...f, install: installed, live: { status: 'skipped', why: 'install failed' } });
  }
  const unsupported = LIVE_UNSUPPORTED[pin.id];
  if (unsupported)
    return rowOf({ ...f, install: installed, live: { status: 'skipped', why: unsupported } });
  o.log(`${pin.id}: live suite against ${installed.bin} (${o.sources})`);
  const run = await runLiveSuite({
    root: o.root,
    id: pin.id,
    suite: liveSuiteOf(pin.id),
    bin: installed.bin,
    scratch: scratchOf(o.root, pin.id, f.newest),
    sources: o.sources,
    ...(o.tests ? { tests: o.tests } : {}),
    timeoutMs: o.liveTimeoutMs,
    ...(o.verbose ? { log: (l: string) => o.log(`  ${l}`) } : {}),
  });
  o.log(`${pin.id}: live suite ${run.live.status}, ${run.unrecognised ?? '-'} unrecognised frames`);
  return rowOf({ ...f, install: installed, ...run });
}

/** Runs the canary over `pins`: the registry for all at once, then one CLI at a time. */
export async function runDrift(pins: readonly PinnedCli[], o: DriftOptions): Promise<DriftRow[]> {
  const host = o.host ?? currentHost();
  o.log(`asking the registry about ${pins.length} CLI(s)`);
  // A few at a time: each npm client is a process of its own on what may be a small machine.
  const facts = await inPool(pins, 3, (p) => askRegistry(p, host));
  const rows: DriftRow[] = [];
  for (let i = 0; i < pins.length; i++) rows.push(await finish(pins[i]!, facts[i]!, o, host));
  return rows;
}
