#!/usr/bin/env bash
# Seeds the corpus of the fuzz target `agent_reader` from the fixtures: for
# each registered agent (its place in `agents! { … }`, src/agent/mod.rs),
# session files cut to 64 KB, or the JSON of its database's rows. Writes
# fuzz/corpus/agent_reader/ (never into tests/fixtures: databases are read
# from a copy).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fx="$here/../tests/fixtures"
out="$here/corpus/agent_reader"
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
agents=$(sed -n '/^agents! {/,/^}/p' "$here/../src/agent/mod.rs" | grep -o '^ *[A-Z]*:' | tr -d ' :')
i=0
seed() { # agent-index pick table-flag file
    printf "\\x$(printf %02x "$1")\\x$(printf %02x "$2")\\x$(printf %02x "$3")" > "$out/$5"
    head -c 65536 "$4" >> "$out/$5"
}
for a in $agents; do
    n=0
    case $a in
        CLAUDE) files=$(find "$fx/client-2.1.332" -name '*.jsonl' | sort | head -12) ;;
        CODEX) files=$(find "$fx/codex-0.171.0" -name 'rollout-*.jsonl' | sort | head -12) ;;
        QWEN) files=$(find "$fx/qwen-0.24.4" -path '*chats*' -name '*.jsonl' | sort | head -12) ;;
        GEMINI) files=$(find "$fx/gemini-0.61.0" "$fx/gemini-json" -name 'session-*' | sort | head -12) ;;
        COPILOT) files=$(find "$fx/copilot-1.0.102" -name 'events.jsonl' | sort | head -12) ;;
        PI) files=$(find "$fx/pi-1.6.0" -name '*.jsonl' | sort | head -12) ;;
        AIDER) files=$(find "$fx/aider-0.86.2" -name '*.md' ! -name README.md | sort | head -12) ;;
        OPENCODE|CRUSH) files="" ;;
        *) echo "seed.sh: no seeds for the agent $a: add them" >&2; exit 1 ;;
    esac
    for f in $files; do
        flag=0; [[ $f == *.json ]] && flag=1
        seed "$i" "$flag" 0 "$f" "$a-$n"; n=$((n + 1))
    done
    if [[ $a == OPENCODE || $a == CRUSH ]]; then
        if [[ $a == OPENCODE ]]; then
            cp "$fx/opencode-1.18.33/tui/opencode.db" "$fx/opencode-1.18.33/tui/opencode.db-wal" "$tmp/"
            db="$tmp/opencode.db"; tables="part:data message:data"
        else
            cp "$fx/crush-sqlite/project/.crush/crush.db" "$tmp/"
            db="$tmp/crush.db"; tables="messages:parts sessions:title"
        fi
        flag=0
        for tc in $tables; do
            t=${tc%%:*}; c=${tc##*:}; row=0
            sqlite3 "$db" "SELECT $c FROM $t ORDER BY rowid LIMIT 12" | while IFS= read -r line; do
                printf '%s' "$line" > "$tmp/row"
                seed "$i" "$row" "$flag" "$tmp/row" "$a-$t-$row"; row=$((row + 1))
            done
            flag=1
        done
    fi
    i=$((i + 1))
done
echo "$(ls "$out" | wc -l) seeds in $out"
