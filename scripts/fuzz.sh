#!/usr/bin/env bash
# The hostile suite: every door paneward opens (HTTP, the browser's Host/Origin, spawn over HTTP,
# MCP and the command line, the fleet's NATS, hook posts, token files, session records, the
# journal on damaged disks, shutdown under a hung tmux), with more generated cases than the
# regular test run gives them. Runs in a few minutes; needs tmux and nats-server.
# Usage: npm run fuzz   (PANEWARD_FUZZ_SCALE=N multiplies the generated cases; default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
scale="${PANEWARD_FUZZ_SCALE:-3}"
export PANEWARD_FUZZ_RUNS=$((3000 * scale))
export PANEWARD_TMUX_DATA_RUNS=$((12 * scale))
export PW_JOURNAL_RUNS=$((120 * scale))
exec npx vitest run \
  test/security/ \
  test/server/fuzz.test.ts test/server/browser-attacks.test.ts test/server/host-guard.test.ts \
  test/server/bounds.test.ts test/server/hook-route.test.ts test/server/unknown-turn.test.ts \
  test/server/spawn-routes.test.ts \
  test/terminal/gate.test.ts test/supervisor/gate-verdicts.test.ts test/supervisor/gate-typing.test.ts \
  test/supervisor/gate-attach.test.ts test/supervisor/spawn-argv.test.ts \
  test/fleet/auth-signed.test.ts test/fleet/auth-nats.test.ts \
  test/hooks/ test/internal/token-file.test.ts \
  test/sessions/record-safety-opens.test.ts test/sessions/record-safety-bounds.test.ts \
  test/profiles/session-records/reasons.test.ts \
  test/journal/bytes.test.ts test/journal/damage.test.ts test/journal/links.test.ts \
  test/journal/disk-full.test.ts \
  test/cli/serve-signals.test.ts test/cli/no-locale.test.ts \
  test/observe/tmux-locale.test.ts test/observe/garbled-format.test.ts "$@"
