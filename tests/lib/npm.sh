# Sourced by the scripts that run pinned npm packages (tests/ts-client, tests/inspector-cli,
# tests/reference-server).
#
# npm_install NAME SOURCE_DIR CHECK: `npm ci` of SOURCE_DIR's package.json and package-lock.json
# into ${XDG_CACHE_HOME:-$HOME/.cache}/mcp-codegen-NAME/<hash of the two>, unless done already
# (an unchanged lock is never refetched; an interrupted install is redone); CHECK, a path under
# the install, must exist after it. Sets $npm_dir to the install. Fails (exit 1) when npm or the
# registry cannot be reached on the first install: nothing is skipped.
npm_install() {
  local name="$1" source="$2" check="$3" hash
  hash="$(cat "$source/package.json" "$source/package-lock.json" | sha256sum | cut -c1-12)"
  npm_dir="${XDG_CACHE_HOME:-$HOME/.cache}/mcp-codegen-$name/$hash"
  if [ -f "$npm_dir/.installed" ] && [ -e "$npm_dir/$check" ]; then
    return 0
  fi
  command -v npm >/dev/null || { echo "error: npm not found (needed for the first install into $npm_dir)" >&2; exit 1; }
  echo "installing $name (npm ci from $source/package-lock.json) into $npm_dir" >&2
  rm -rf "$npm_dir" && mkdir -p "$npm_dir"
  cp "$source/package.json" "$source/package-lock.json" "$npm_dir/"
  (cd "$npm_dir" && npm ci --no-audit --no-fund --loglevel=error) >&2 || { echo "error: npm ci in $npm_dir failed" >&2; exit 1; }
  [ -e "$npm_dir/$check" ] || { echo "error: the install in $npm_dir has no $check" >&2; exit 1; }
  touch "$npm_dir/.installed"   # last, so an interrupted install is redone
}
