#!/usr/bin/env bash
# Placement set-up: installs what the build needs, printing what and why, and
# quickly skipping whatever is already present. Safe to run again and again.
#
# Usage: scripts/setup.sh [-q] [STEP...]        (no STEP: rust wasm)
#
#   rust          rustfmt and clippy components of the active rustup toolchain
#   wasm          a working wasm32-unknown-unknown build, recorded in target/wasm-env.sh
#                 (used by scripts/cargo-wasm.sh). Picks, in order:
#                   1. rustup's prebuilt std for the target, when it is installed;
#                   2. `timeout 90 rustup target add wasm32-unknown-unknown`;
#                   3. Debian's rustc-web, cargo-web and rust-web-src, building std
#                      from source with cargo's build-std (see ../shared/TOOLCHAIN.md).
#                 PLACEMENT_FORCE_BUILD_STD=1 skips 1 and 2 (to exercise the fallback).
#   chromium      Debian's chromium and chromium-driver, for browser tests
#   cargo-fuzz    cargo-fuzz (pinned) and the nightly toolchain it needs
#   trunk         trunk (pinned), for the playground
#   wasm-bindgen  wasm-bindgen-cli at the wasm-bindgen version in Cargo.lock
#   tool NAME VERSION   any crates.io tool, pinned, via cargo_install_pinned
#
#   -q            say nothing when everything is already present
#
# Tools from crates.io go to ${PLACEMENT_TOOLS:-$HOME/.cache/placement-tools}/bin,
# outside the repository, so that a fresh clone on the same machine reuses them.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PLACEMENT_TOOLS="${PLACEMENT_TOOLS:-$HOME/.cache/placement-tools}"
WASM_TARGET=wasm32-unknown-unknown
WASM_ENV_FILE="$ROOT/target/wasm-env.sh"
RUSTUP_TARGET_ADD_TIMEOUT="${RUSTUP_TARGET_ADD_TIMEOUT:-90}"

# Pinned tool versions (crates.io).
TRUNK_VERSION=0.21.14       # 0.22 needs rustc 1.96.1, newer than the compilers here
CARGO_FUZZ_VERSION=0.13.2

QUIET=0
APT_UPDATED=0

say() { printf 'setup: %s\n' "$*" >&2; }
info() { [ "$QUIET" = 1 ] || say "$@"; }
die() {
    printf 'setup: error: %s\n' "$*" >&2
    exit 1
}

as_root() {
    if [ "$(id -u)" = 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        die "need root (or sudo) to run: $*"
    fi
}

deb_installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'
}

# apt_install WHY PACKAGE...: installs the packages that are missing; runs
# `apt-get update` at most once per invocation of this script.
apt_install() {
    local why=$1 p
    shift
    local missing=()
    for p in "$@"; do
        deb_installed "$p" || missing+=("$p")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        info "Debian packages present: $*"
        return 0
    fi
    command -v apt-get >/dev/null 2>&1 || die "apt-get not found; install ${missing[*]} by hand ($why)"
    say "installing Debian packages ${missing[*]}: $why"
    if [ "$APT_UPDATED" = 0 ]; then
        say "apt-get update"
        as_root apt-get update -qq
        APT_UPDATED=1
    fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# cargo_install_pinned NAME VERSION [EXTRA cargo install ARGS...]
# Installs crates.io tool NAME at exactly VERSION (with its own Cargo.lock) into
# $PLACEMENT_TOOLS, unless that version is already there.
cargo_install_pinned() {
    local name=$1 version=$2
    shift 2
    local root="$PLACEMENT_TOOLS"
    if [ -f "$root/.crates2.json" ] && grep -qF "\"$name $version (" "$root/.crates2.json"; then
        info "$name $version present in $root/bin"
        return 0
    fi
    say "installing $name $version into $root/bin (cargo install --locked, in the tools profile below: about a minute or three)"
    mkdir -p "$root"
    # No registry ships these tools prebuilt for this machine (npm, PyPI and Debian have no
    # trunk, wasm-bindgen-cli or cargo-fuzz; cargo-binstall downloads from GitHub, which these
    # machines cannot reach), so they are compiled, in a profile that compiles fast: the tools'
    # own release profiles (trunk's: fat LTO, one codegen unit) took 14 and 8 minutes cold on
    # 2 cores, opt-level 0 without LTO takes 3 and 1 (BENCHMARKS.md, "Continuous
    # integration"). What they do here (run cargo, copy files, rewrite a wasm module) is not
    # where a build's time goes. PLACEMENT_TOOLS_OPT_LEVEL=3 builds them optimised.
    local -x CARGO_PROFILE_RELEASE_OPT_LEVEL="${PLACEMENT_TOOLS_OPT_LEVEL:-0}"
    local -x CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=256
    local -x CARGO_PROFILE_RELEASE_DEBUG=false CARGO_PROFILE_RELEASE_INCREMENTAL=false
    if ! cargo install --quiet --root "$root" --version "=$version" --locked "$@" "$name"; then
        # The tool's own Cargo.lock can name a dependency version that the registry index
        # does not offer (yet). Only tools marked safe to resolve afresh retry without it.
        [ "${CARGO_INSTALL_UNLOCKED_FALLBACK:-0}" = 1 ] || return 1
        say "$name $version: its Cargo.lock does not resolve here; retrying without --locked"
        # The registry's index can lag behind itself for a minute (seen here: a first
        # resolution found no webpki-roots for ureq, the same command minutes later did).
        local try
        for try in 1 2 3; do
            cargo install --quiet --root "$root" --version "=$version" "$@" "$name" && break
            [ "$try" = 3 ] && return 1
            say "$name $version: resolution failed (try $try of 3); retrying in 30 s"
            sleep 30
        done
    fi
    case ":$PATH:" in
    *":$root/bin:"*) ;;
    *) say "note: add $root/bin to PATH (the Makefile does)" ;;
    esac
}

setup_rust() {
    command -v cargo >/dev/null 2>&1 || die "cargo not found: install Rust with rustup (https://rustup.rs)"
    local comp
    for comp in rustfmt clippy; do
        local probe=fmt
        [ "$comp" = clippy ] && probe=clippy
        if cargo "$probe" --version >/dev/null 2>&1; then
            info "rust component $comp present"
        else
            say "installing rustup component $comp: make test runs cargo $probe"
            rustup component add "$comp"
        fi
    done
}

rustup_wasm_std_dir() {
    local libdir
    libdir="$(rustc --print target-libdir --target "$WASM_TARGET" 2>/dev/null)" || return 1
    compgen -G "$libdir/libstd-*.rlib" >/dev/null || return 1
    printf '%s\n' "$libdir"
}

# write_if_changed FILE: stdin to FILE, leaving FILE untouched if identical.
write_if_changed() {
    local file=$1 tmp
    mkdir -p "$(dirname "$file")"
    tmp="$(mktemp "$file.XXXXXX")"
    cat >"$tmp"
    if [ -f "$file" ] && cmp -s "$tmp" "$file"; then
        rm -f "$tmp"
    else
        mv "$tmp" "$file"
        info "wrote $file"
    fi
}

write_wasm_env_rustup() {
    write_if_changed "$WASM_ENV_FILE" <<EOF
# Generated by scripts/setup.sh wasm; sourced by scripts/cargo-wasm.sh.
# Mode: rustup's prebuilt std for $WASM_TARGET.
PLACEMENT_WASM_MODE=rustup
PLACEMENT_WASM_CARGO=cargo
unset RUSTC RUSTC_BOOTSTRAP CARGO_UNSTABLE_BUILD_STD
export CARGO_TARGET_DIR="\${PLACEMENT_WASM_TARGET_DIR:-$ROOT/target/wasm}"
EOF
}

write_wasm_env_build_std() {
    local lld_dir=$1
    write_if_changed "$WASM_ENV_FILE" <<EOF
# Generated by scripts/setup.sh wasm; sourced by scripts/cargo-wasm.sh.
# Mode: build-std fallback: Debian's rustc/cargo (rustc-web, cargo-web) build std for
# $WASM_TARGET from Debian's rust-web-src; rust-lld comes from the rustup toolchain.
PLACEMENT_WASM_MODE=build-std
PLACEMENT_WASM_CARGO=/usr/bin/cargo
export CARGO=/usr/bin/cargo
export RUSTC=/usr/bin/rustc
export RUSTC_BOOTSTRAP=1
export CARGO_UNSTABLE_BUILD_STD=std,panic_abort
case ":\$PATH:" in
*":$lld_dir:"*) ;;
*) export PATH="$lld_dir:\$PATH" ;;
esac
export CARGO_TARGET_DIR="\${PLACEMENT_WASM_TARGET_DIR:-$ROOT/target/wasm-buildstd}"
EOF
}

setup_wasm_build_std() {
    apt_install "no rustup std for $WASM_TARGET: build it from source with Debian's rustc 1.96" \
        rustc-web cargo-web rust-web-src
    if [ ! -x /usr/bin/rustc ] || [ ! -x /usr/bin/cargo ]; then
        die "/usr/bin/rustc or /usr/bin/cargo missing after installing rustc-web cargo-web"
    fi
    local src
    src="$(/usr/bin/rustc --print sysroot)/lib/rustlib/src/rust/library"
    [ -f "$src/Cargo.lock" ] || die "std source not found at $src (package rust-web-src)"

    # rust-lld, the wasm linker, ships with the rustup toolchain.
    local host lld_dir
    host="$(rustc -vV | sed -n 's/^host: //p')"
    lld_dir="$(rustc --print sysroot)/lib/rustlib/$host/bin"
    if [ ! -x "$lld_dir/rust-lld" ]; then
        local found
        found="$(command -v rust-lld || true)"
        [ -n "$found" ] || die "rust-lld not found in $lld_dir nor on PATH"
        lld_dir="$(dirname "$found")"
    fi
    info "wasm: build-std fallback ($(/usr/bin/rustc --version), std source $src, rust-lld in $lld_dir)"
    write_wasm_env_build_std "$lld_dir"
}

setup_wasm() {
    command -v rustc >/dev/null 2>&1 || die "rustc not found: install Rust with rustup (https://rustup.rs)"
    local libdir
    if [ "${PLACEMENT_FORCE_BUILD_STD:-0}" = 1 ]; then
        info "wasm: PLACEMENT_FORCE_BUILD_STD=1, using the build-std fallback"
    elif libdir="$(rustup_wasm_std_dir)"; then
        info "wasm: rustup std for $WASM_TARGET present ($libdir)"
        write_wasm_env_rustup
        return 0
    elif command -v rustup >/dev/null 2>&1; then
        say "wasm: no std for $WASM_TARGET; trying 'rustup target add $WASM_TARGET' (at most ${RUSTUP_TARGET_ADD_TIMEOUT}s: it can stall on these machines)"
        if timeout "$RUSTUP_TARGET_ADD_TIMEOUT" rustup target add "$WASM_TARGET" &&
            libdir="$(rustup_wasm_std_dir)"; then
            say "wasm: rustup std for $WASM_TARGET installed ($libdir)"
            write_wasm_env_rustup
            return 0
        fi
        say "wasm: rustup target add failed or timed out; falling back to build-std"
    else
        say "wasm: no rustup; falling back to build-std"
    fi
    setup_wasm_build_std
}

setup_chromium() {
    apt_install "headless browser tests (wasm-bindgen-test, Playwright)" chromium chromium-driver
    info "chromium: $(command -v chromium || echo '?'), chromedriver: $(command -v chromedriver || echo '?')"
}

setup_cargo_fuzz() {
    if cargo +nightly --version >/dev/null 2>&1; then
        info "nightly toolchain present"
    else
        say "installing the nightly toolchain: cargo fuzz needs it"
        rustup toolchain install nightly --profile minimal
    fi
    cargo_install_pinned cargo-fuzz "$CARGO_FUZZ_VERSION"
}

setup_wasm_bindgen() {
    local lock="$ROOT/Cargo.lock" version
    [ -f "$lock" ] || die "no Cargo.lock: wasm-bindgen-cli must match the wasm-bindgen crate version in it"
    version="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/^version = "|"$/, ""); print; exit }' "$lock")"
    [ -n "$version" ] || die "wasm-bindgen is not in Cargo.lock yet (the playground, issue 5, brings it)"
    # wasm-bindgen-cli's lock can be ahead of the registry index (webpki-roots 1.0.11 was):
    # its dependencies resolve fine afresh, unlike trunk's (see ../shared/TOOLCHAIN.md).
    CARGO_INSTALL_UNLOCKED_FALLBACK=1 cargo_install_pinned wasm-bindgen-cli "$version"
}

usage() {
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
}

main() {
    local steps=()
    while [ $# -gt 0 ]; do
        case $1 in
        -q | --quiet) QUIET=1 ;;
        -h | --help)
            usage
            return 0
            ;;
        tool)
            [ $# -ge 3 ] || die "usage: setup.sh tool NAME VERSION"
            steps+=("tool:$2:$3")
            shift 2
            ;;
        rust | wasm | chromium | cargo-fuzz | trunk | wasm-bindgen) steps+=("$1") ;;
        *) die "unknown step '$1' (see scripts/setup.sh --help)" ;;
        esac
        shift
    done
    [ ${#steps[@]} -gt 0 ] || steps=(rust wasm)

    local step name version
    for step in "${steps[@]}"; do
        case $step in
        rust) setup_rust ;;
        wasm) setup_wasm ;;
        chromium) setup_chromium ;;
        cargo-fuzz) setup_cargo_fuzz ;;
        # Without the default `update_check` (a request to crates.io at every start).
        trunk) cargo_install_pinned trunk "$TRUNK_VERSION" --no-default-features --features rustls ;;
        wasm-bindgen) setup_wasm_bindgen ;;
        tool:*:*)
            IFS=: read -r _ name version <<<"$step"
            cargo_install_pinned "$name" "$version"
            ;;
        esac
    done
}

main "$@"
