#!/usr/bin/env bash
# Installs the system packages Ripple needs on a fresh Debian/Ubuntu machine, skipping what is there.
# Safe to run again. Needs root (or sudo) only when something is missing. With --test, also what the test
# command needs (Scripts/test).
set -euo pipefail

# Packages by layer; each later issue adds its own here.
packages=(
    pkg-config        # finds the C libraries below
    libuv1-dev        # RippleLoop
    libdbus-1-dev     # RippleDBus
    dbus              # a private dbus-daemon for the tests and the simulator
    python3           # the bleak interop check of the simulator (Scripts/interop-bleak)
    python3-venv      #   … which installs bleak from PyPI into a virtual environment of its own
)

# What the test command needs besides (Scripts/test passes --test).
if [ "${1:-}" = "--test" ]; then
    packages+=(
        shellcheck    # Scripts/check-scripts
    )
fi

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    export DEBIAN_FRONTEND=noninteractive
    "${sudo_cmd[@]}" apt-get update -qq
    "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

command -v swift >/dev/null || { echo "setup: the Swift 6 toolchain must be on PATH (swift.org/install)" >&2; exit 1; }
