#!/usr/bin/env bash
# Installs one agent CLI, at the version paneward's profiles were verified against, into
# .tmp/agents/<tool>/ and prints the path of its executable.
# Usage: scripts/install-agent.sh TOOL   (a profile id: see the case list below)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
case "${1:-}" in
  claude_code) pkg=@anthropic-ai/claude-code@2.1.332 bin=claude ;;
  codex) pkg=@openai/codex@0.171.0 bin=codex ;;
  gemini_cli) pkg=@google/gemini-cli@0.61.0 bin=gemini ;;
  opencode) pkg=opencode-ai@1.18.33 bin=opencode ;;
  # 7.8.x has no Linux platform package in the registry.
  kilo) pkg=@kilocode/cli@7.7.7 bin=kilo ;;
  qwen_code) pkg=@qwen-code/qwen-code@0.24.4 bin=qwen ;;
  pi) pkg=@mariozechner/pi-coding-agent@0.73.1 bin=pi ;;
  cline) pkg=cline@3.0.65 bin=cline ;;
  copilot) pkg=@github/copilot@1.0.102 bin=copilot ;;
  grok_cli) pkg=@vibe-kit/grok-cli@0.0.34 bin=grok ;;
  *)
    echo "usage: $0 claude_code|codex|gemini_cli|opencode|kilo|qwen_code|pi|cline|copilot|grok_cli" >&2
    exit 2
    ;;
esac
# The install folder is named after the profile id, never after the package: npm refuses to
# install a package into a folder of the same name (`cline`).
dir="$root/.tmp/agents/$1"
# An install of another version (an older pin) is replaced: the pin is what was verified.
name=${pkg%@*}
want=${pkg##*@}
have=$(node -e 'try { process.stdout.write(require(process.argv[1]).version) } catch { }' \
  "$dir/node_modules/$name/package.json" 2>/dev/null || true)
if [ ! -x "$dir/node_modules/.bin/$bin" ] || [ "$have" != "$want" ]; then
  if [ -n "$have" ] && [ "$have" != "$want" ]; then
    echo "replacing $name $have with the pinned $want" >&2
    rm -rf "$dir"
  fi
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "$pkg" >&2
fi
echo "$dir/node_modules/.bin/$bin"
