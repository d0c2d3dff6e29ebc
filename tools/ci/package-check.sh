#!/usr/bin/env bash
# Packages every publishable crate and tests the packages as a user gets them.
#
# `cargo package` verifies that each .crate builds; this goes further: it unpacks every
# .crate into a scratch workspace whose crates depend on each other's *packaged* copies
# (through [patch.crates-io], as if they came from crates.io), and runs their tests and
# doctests there, so a README example or a test that reads a file the package leaves out
# fails here rather than for a user. Then `cargo publish --dry-run` of the whole workspace.
set -euo pipefail
cd "$(dirname "$0")/../.."

mapfile -t crates < <(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p.get("publish") != []:
        print(p["name"] + " " + p["version"])
')
names=()
for entry in "${crates[@]}"; do names+=("${entry%% *}"); done
echo "publishable: ${names[*]}"

# `cargo package` verifies each crate against its siblings' new packages through a
# temporary local registry, and treats what it extracted and built from such a registry
# before as current when the version is the same (0.1.0 every time): a crate would be
# verified against an older sibling. So the packages are made and verified in a target
# directory of their own, emptied first, and earlier extracts (registry/src/-<hash>/;
# crates.io's are in registry/src/index.crates.io-<hash>/, untouched) are removed.
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
for dir in "$cargo_home"/registry/src/-*/; do
  [ -d "$dir" ] || continue
  for n in "${names[@]}"; do rm -rf "${dir}${n}-"[0-9]*; done
done
packages=target/package-verify
rm -rf "$packages"

args=()
for n in "${names[@]}"; do args+=(-p "$n"); done
CARGO_TARGET_DIR="$packages" cargo package "${args[@]}" "$@"

# Both licences travel with every package: look inside the .crate files themselves (the
# licence files are symlinks in each crate directory; an `include` that misses them
# packages neither, silently).
missing=0
for entry in "${crates[@]}"; do
  crate="$packages/package/${entry%% *}-${entry##* }.crate"
  listing=$(tar tzf "$crate")
  for licence in LICENSE-MIT LICENSE-APACHE; do
    member="${entry%% *}-${entry##* }/$licence"
    if ! grep -qxF "$member" <<<"$listing"; then
      echo "$crate: no $licence (add \"/$licence\" to [package] include)" >&2
      missing=1
    elif [ "$(tar xzf "$crate" -O "$member" | wc -c)" -eq 0 ]; then
      echo "$crate: $licence is empty" >&2
      missing=1
    fi
  done
done
if [ "$missing" -ne 0 ]; then
  exit 1
fi
echo "licences: LICENSE-MIT and LICENSE-APACHE in every .crate"

scratch=target/package-check
rm -rf "$scratch"
mkdir -p "$scratch"
{
  echo '[workspace]'
  echo 'resolver = "3"'
  printf 'members = ['
  for entry in "${crates[@]}"; do printf '"%s-%s", ' "${entry%% *}" "${entry##* }"; done
  echo ']'
  echo '[patch.crates-io]'
  for entry in "${crates[@]}"; do
    echo "${entry%% *} = { path = \"${entry%% *}-${entry##* }\" }"
  done
} >"$scratch/Cargo.toml"
for entry in "${crates[@]}"; do
  tar xzf "$packages/package/${entry%% *}-${entry##* }.crate" -C "$scratch"
done
# The unpacked crates, not the repository: no path leads back to crates/.
if grep -rn 'path = "\.\./' "$scratch"/*/Cargo.toml; then
  echo "a packaged manifest points outside its package" >&2
  exit 1
fi
cargo test --manifest-path "$scratch/Cargo.toml" --workspace --all-features

CARGO_TARGET_DIR="$packages" cargo publish --dry-run --workspace --exclude binfmt-benches "$@"
echo "packages OK: ${names[*]}"
