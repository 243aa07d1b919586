/**
 * Whether a release has a build for this machine. Native CLIs ship one package per platform as
 * optional dependencies (`@kilocode/cli-linux-x64`); npm skips a missing one without a word, and
 * the CLI then does not start. Pure JS CLIs have no such packages and run anywhere.
 */

/** The fields of `npm view <pkg>@<version> --json` read here. */
export interface PackageView {
  name: string;
  version: string;
  os?: string[];
  cpu?: string[];
  optionalDependencies?: Record<string, string>;
}

/** The machine a build must run on. */
export interface Host {
  platform: string;
  arch: string;
  /** On Linux, the C library (musl builds do not run on glibc, and the other way round). */
  libc: 'glibc' | 'musl' | null;
}

/** This machine. */
export function currentHost(): Host {
  let libc: Host['libc'] = null;
  if (process.platform === 'linux') {
    const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } })
      ?.header;
    libc = header?.glibcVersionRuntime ? 'glibc' : 'musl';
  }
  return { platform: process.platform, arch: process.arch, libc };
}

/** How a host is named in the table (`linux-x64`). */
export const hostName = (h: Host): string => `${h.platform}-${h.arch}`;

/** A platform package of a release: its dependency name and what to ask the registry for. */
export interface PlatformPackage {
  name: string;
  /** `<pkg>@<version>` (an `npm:` alias resolved to the package it names). */
  spec: string;
}

/** What a release needs from the registry to run on a host. */
export type PlatformNeed =
  | { kind: 'any' }
  | { kind: 'excluded'; why: string }
  | { kind: 'one_of'; packages: PlatformPackage[] };

const OS_TOKENS: Record<string, { os: string; musl?: boolean }> = {
  linux: { os: 'linux' },
  linuxmusl: { os: 'linux', musl: true },
  darwin: { os: 'darwin' },
  macos: { os: 'darwin' },
  win32: { os: 'win32' },
  windows: { os: 'win32' },
  freebsd: { os: 'freebsd' },
};
const ARCH_TOKENS = new Set(['x64', 'arm64', 'ia32', 'arm']);

/** The platform a dependency's name says it is for (`cli-linux-x64-musl`), or null. */
export function platformOfName(name: string): { os: string; arch: string; musl: boolean } | null {
  const tokens = name.slice(name.lastIndexOf('/') + 1).split('-');
  const os = tokens.map((t) => OS_TOKENS[t]).find(Boolean);
  const arch = tokens.find((t) => ARCH_TOKENS.has(t));
  if (!os || !arch) return null;
  return { os: os.os, arch, musl: os.musl === true || tokens.includes('musl') };
}

/** npm's `os`/`cpu` list allows `value` (`!x` excludes, any plain entry must match). */
function listAllows(list: readonly string[] | undefined, value: string): boolean {
  if (!list || list.length === 0) return true;
  if (list.includes(`!${value}`)) return false;
  const plain = list.filter((v) => !v.startsWith('!'));
  return plain.length === 0 || plain.includes(value);
}

/** What the release in `view` needs to run on `host`. */
export function platformNeed(view: PackageView, host: Host): PlatformNeed {
  if (!listAllows(view.os, host.platform) || !listAllows(view.cpu, host.arch)) {
    return {
      kind: 'excluded',
      why: `${view.name}@${view.version} is for ${(view.os ?? ['any os']).join(',')} ${(view.cpu ?? ['any cpu']).join(',')}`,
    };
  }
  const deps = Object.entries(view.optionalDependencies ?? {});
  const platformDeps = deps.filter(([name]) => platformOfName(name) !== null);
  if (platformDeps.length === 0) return { kind: 'any' };
  const packages = platformDeps
    .filter(([name]) => {
      const p = platformOfName(name)!;
      if (p.os !== host.platform || p.arch !== host.arch) return false;
      return host.libc === null || p.musl === (host.libc === 'musl');
    })
    .map(([name, range]) => ({ name, spec: specOf(name, range) }));
  if (packages.length === 0) {
    return {
      kind: 'excluded',
      why: `no ${hostName(host)} package among its optional dependencies`,
    };
  }
  return { kind: 'one_of', packages };
}

/** The registry spec of an optional dependency: `npm:@openai/codex@0.171.0-linux-x64` aliases. */
export function specOf(name: string, range: string): string {
  return range.startsWith('npm:') ? range.slice(4) : `${name}@${range}`;
}

/** Whether the release runs here, and a short reason for the table. */
export interface PlatformVerdict {
  ok: boolean;
  detail: string;
}

/**
 * The verdict once the registry has answered for each platform package (`found[spec]`: the
 * version it has, or null when it has none).
 */
export function platformVerdict(
  need: PlatformNeed,
  found: Readonly<Record<string, string | null>>,
  host: Host,
): PlatformVerdict {
  if (need.kind === 'any') return { ok: true, detail: 'no platform packages (pure JS)' };
  if (need.kind === 'excluded')
    return { ok: false, detail: `no ${hostName(host)} build: ${need.why}` };
  const present = need.packages.filter((p) => found[p.spec]);
  if (present.length > 0) return { ok: true, detail: present.map((p) => p.spec).join(', ') };
  return {
    ok: false,
    detail: `no ${hostName(host)} build: the registry has no ${need.packages.map((p) => p.spec).join(' or ')}`,
  };
}
