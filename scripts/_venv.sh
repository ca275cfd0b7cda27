# Sourced by scripts/engine and scripts/test: creates or refreshes the project's virtual
# environment (.venv beside pyproject.toml) when it is missing or older than
# pyproject.toml, installing the project in editable mode with the extras in $1.
# Everything it prints goes to stderr: stdout belongs to the engine's protocol.

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${ENGINE_VENV:-$root/.venv}"

ensure_venv() {
    local extras="$1"
    local spec="."
    [ -n "$extras" ] && spec=".[$extras]"
    local stamp="$venv/.engine-stamp"
    local want
    want="$(cat "$root/pyproject.toml" | cksum | cut -d' ' -f1) $extras"
    if [ -x "$venv/bin/python" ] && [ -f "$stamp" ]; then
        local have
        have="$(cat "$stamp")"
        # A stamp made with the test extras (a superset of the others) serves every
        # command; any stamp serves the plain engine.
        if [ "$have" = "$want" ] || { [ "${have%% *}" = "${want%% *}" ] \
                && { [ -z "$extras" ] || [ "${have#* }" = "test" ]; }; }; then
            return 0
        fi
    fi
    local python="${PYTHON:-python3}"
    if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        echo "engine needs Python 3.11 or newer as '$python' (set PYTHON=... to choose one)" >&2
        exit 1
    fi
    echo "setting up $venv ..." >&2
    if [ ! -x "$venv/bin/python" ]; then
        "$python" -m venv "$venv" >&2 || {
            echo "could not create a virtual environment; install the venv module (python3-venv)" >&2
            exit 1
        }
    fi
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >&2 || true
    (cd "$root" && "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$spec") >&2
    echo "$want" > "$stamp"
}

# The browser of the web GUI's tests: Debian's chromium, installed where this user may
# (root with apt-get) and it is missing; elsewhere those tests skip and say why.
ensure_browser() {
    if [ -n "${ENGINE_TEST_BROWSER:-}" ] || command -v chromium >/dev/null 2>&1; then
        return 0
    fi
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing chromium for the web GUI's tests ..." >&2
        { DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium \
            || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; }; } \
            >/dev/null 2>&1 || echo "could not install chromium: the browser tests will skip" >&2
    fi
}
