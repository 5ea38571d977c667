#!/usr/bin/env bash
# stats_keys.sh WSC DOC: docs/STATS.md's generated block equals `wsc stats keys` (regenerate it
# with that command when the registry, testbench/StatsSchema.cpp, changes).
set -u
wsc=$1; doc=$2
want=$("$wsc" stats keys) || { echo "wsc stats keys failed"; exit 1; }
have=$(sed -n '/<!-- stats-keys:begin -->/,/<!-- stats-keys:end -->/p' "$doc" | sed '1d;$d')
if [ "$want" != "$have" ]; then
    echo "docs/STATS.md differs from \`wsc stats keys\`; regenerate the block between the markers:"
    diff <(echo "$have") <(echo "$want") | head -40
    exit 1
fi
echo "ok: docs/STATS.md holds $(grep -c '^| `' <<<"$want") keys, as the registry"
