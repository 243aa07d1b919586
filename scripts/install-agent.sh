#!/usr/bin/env bash
# Installs one agent CLI, at the version paneward's profiles were verified against, into
# .tmp/agents/<tool>/ and prints the path of its executable.
# Usage: scripts/install-agent.sh claude_code|codex|gemini_cli
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
case "${1:-}" in
  claude_code) pkg=@anthropic-ai/claude-code@2.1.330 bin=claude ;;
  codex) pkg=@openai/codex@0.169.0 bin=codex ;;
  gemini_cli) pkg=@google/gemini-cli@0.61.0 bin=gemini ;;
  *) echo "usage: $0 claude_code|codex|gemini_cli" >&2; exit 2 ;;
esac
dir="$root/.tmp/agents/$1"
if [ ! -x "$dir/node_modules/.bin/$bin" ]; then
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "$pkg" >&2
fi
echo "$dir/node_modules/.bin/$bin"
