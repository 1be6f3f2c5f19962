#!/usr/bin/env bash
# tests/scripts/install_deps_test.sh — the README's first command, `bash scripts/install-deps.sh
# --if-missing`, run from the project's root as a user runs it, on simulated machines: stand-in
# dpkg-query, apt-get, sudo and id first on PATH (apt-get and sudo only record their calls), so
# nothing is installed and the machine's own packages do not matter. Cases:
#   fresh      dpkg-query knows cmake and g++ only and exits 1 for the rest, as the real one does
#              for packages never installed; parallel is removed but its configuration is kept
#              ("deinstall ok config-files"). As a user (through sudo) and as root (without):
#              exit 0, says what is missing, apt-get update, then install of the missing
#              packages only.
#   complete   every package installed: exit 0, prints nothing, apt-get never called.
#   no-dpkg    no dpkg-query on PATH (not Debian): exit 0, one line saying so, apt-get never called.
# Usage: install_deps_test.sh PROJECT_ROOT. Exit 0 when all hold; else 1, naming the case.
set -u
root="${1:?usage: install_deps_test.sh PROJECT_ROOT}"
cd "$root" || exit 1
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
failures=0
bad() { echo "FAIL [$case]: $*"; echo "  output:"; sed 's/^/    /' "$t/out"; echo "  calls:"; sed 's/^/    /' "$t/calls" 2>/dev/null; failures=$((failures + 1)); }

# The packages the script installs, read from it (the list between 'packages=(' and ')').
mapfile -t all < <(awk '/^packages=\(/ { on = 1; sub(/^packages=\(/, "") } on { n = split($0, w, /[ )]+/); for (i = 1; i <= n; ++i) if (w[i] != "") print w[i]; if (/\)/) exit }' scripts/install-deps.sh)
[[ ${#all[@]} -ge 10 ]] || { echo "FAIL: could not read the package list of scripts/install-deps.sh (${#all[@]} names)"; exit 1; }

# stubs DIR "INSTALLED..." "REMOVED...": a dpkg-query that lists INSTALLED as installed, REMOVED
# as removed with their configuration kept, and exits 1 naming any other package (as the real
# one does for a package never installed); an apt-get and a sudo that record their calls.
stubs() {
    mkdir -p "$1"
    cat > "$1/dpkg-query" <<Q
#!/usr/bin/env bash
installed=" $2 " removed=" $3 " rc=0
for a in "\$@"; do
    case "\$a" in
        -*) ;;
        *) if [[ "\$installed" == *" \$a "* ]]; then echo "\$a install ok installed"
           elif [[ "\$removed" == *" \$a "* ]]; then echo "\$a deinstall ok config-files"
           else echo "dpkg-query: no packages found matching \$a" >&2; rc=1; fi ;;
    esac
done
exit \$rc
Q
    printf '#!/usr/bin/env bash\necho "apt-get $*" >> "%s"\n' "$t/calls" > "$1/apt-get"
    printf '#!/usr/bin/env bash\necho "sudo $1 ..." >> "%s"\n"$@"\n' "$t/calls" > "$1/sudo"
    chmod +x "$1"/*
}
# as_user UID: an id that reports UID for -u (the script asks nothing else).
as_user() { printf '#!/usr/bin/env bash\n[[ "$1" == -u ]] && echo %s\n' "$1" > "$t/bin/id"; chmod +x "$t/bin/id"; }
run() { rm -f "$t/calls"; PATH="$1" bash scripts/install-deps.sh --if-missing > "$t/out" 2>&1; rc=$?; }

# --- fresh, as a user through sudo and as root ---------------------------------------------
stubs "$t/bin" "cmake g++" "parallel"
for uid in 1000 0; do
    case="fresh, uid $uid"
    as_user "$uid"
    run "$t/bin:$PATH"
    [[ $rc -eq 0 ]] || { bad "exit $rc, expected 0"; continue; }
    grep -q '^install-deps: missing .*libeigen3-dev' "$t/out" || bad "no line naming the missing packages"
    calls="$(cat "$t/calls" 2>/dev/null)"
    install="$(grep -m1 '^apt-get .*install ' <<<"$calls")"
    [[ "$(grep '^apt-get' <<<"$calls" | cut -d' ' -f2 | tr '\n' ' ')" == "update install " ]] ||
        bad "not apt-get update, then apt-get install"
    wrong=""
    for p in "${all[@]}"; do
        case "$p" in
            cmake|g++) [[ " $install " != *" $p "* ]] || wrong+=" $p (installed)" ;;
            *) [[ " $install " == *" $p "* ]] || wrong+=" $p (missing)" ;;
        esac
    done
    [[ -z "$wrong" ]] || bad "apt-get install got these wrong:$wrong"
    if [[ $uid -ne 0 ]]; then
        [[ "$(grep -c '^sudo ' <<<"$calls")" -eq 2 ]] || bad "apt-get not run through sudo twice as a user"
    else
        ! grep -q '^sudo ' <<<"$calls" || bad "sudo used as root"
    fi
done

# --- complete: silent, installs nothing ------------------------------------------------------
case="complete"
rm -rf "$t/bin"; stubs "$t/bin" "${all[*]}" ""
as_user 1000
run "$t/bin:$PATH"
[[ $rc -eq 0 ]] || bad "exit $rc, expected 0"
[[ ! -s "$t/out" ]] || bad "printed something although nothing is missing"
[[ ! -s "$t/calls" ]] || bad "called apt-get or sudo although nothing is missing"

# --- no dpkg-query: not Debian ---------------------------------------------------------------
case="no-dpkg"
rm -f "$t/bin/dpkg-query"
mkdir -p "$t/tools"  # bash alone: the script needs nothing else to decide
ln -s "$(command -v bash)" "$t/tools/bash"
run "$t/bin:$t/tools"
[[ $rc -eq 0 ]] || bad "exit $rc, expected 0"
grep -q 'dpkg not found' "$t/out" || bad "no line saying dpkg-query is missing"
[[ ! -s "$t/calls" ]] || bad "called apt-get or sudo without dpkg-query"

if [[ $failures -gt 0 ]]; then echo "install-deps --if-missing: $failures failure(s)"; exit 1; fi
echo "install-deps --if-missing: fresh machine (as a user and as root), complete machine, no dpkg-query: all hold"
