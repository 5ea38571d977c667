#!/usr/bin/env bash
# expect_fail.sh CODE REGEX -- COMMAND...: passes when COMMAND exits with CODE and its combined
# output matches REGEX (used by ctest to check the CLI's error handling end to end).
code=$1; regex=$2; shift 3
out=$("$@" 2>&1); rc=$?
if [ "$rc" -ne "$code" ]; then echo "expected exit $code, got $rc"; echo "$out"; exit 1; fi
if ! grep -Eq -- "$regex" <<<"$out"; then echo "output does not match /$regex/:"; echo "$out"; exit 1; fi
echo "ok: exit $rc, $(grep -E -m1 -- "$regex" <<<"$out")"
