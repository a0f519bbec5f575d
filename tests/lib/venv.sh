# Sourced by the test scripts that run Python clients (tests/python-client, tests/jsonrpc-client);
# starting the servers they drive is tests/lib/servers.sh's.
#
# python_venv DIR REQUIREMENTS WHAT: makes DIR a venv holding REQUIREMENTS (pinned, hash-checked
# wheels only), re-created only when REQUIREMENTS changes; WHAT names the packages in the error
# when PyPI cannot be reached (the caller then exits: nothing is skipped).
python_venv() {
  local dir="$1" requirements="$2" what="$3" stamp wanted
  stamp="$dir/.requirements.sha256"
  wanted="$(sha256sum "$requirements" | cut -d' ' -f1)"
  [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ] || return 0
  rm -rf "$dir"
  python3 -m venv "$dir"
  if ! "$dir/bin/pip" install --quiet --require-hashes --only-binary :all: -r "$requirements"; then
    echo "error: installing $what from PyPI failed (is PyPI reachable?)" >&2
    return 1
  fi
  echo "$wanted" >"$stamp"
}
