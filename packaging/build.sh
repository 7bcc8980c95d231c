#!/usr/bin/env bash
# Builds the one-folder desktop app dist/factdesk/ with PyInstaller, checks that it runs, and
# writes dist/factdesk/factdesk.desktop pointing at it. From a fresh clone:
#
#     packaging/build.sh
#
# It uses .venv (created with the pinned dependencies when missing; torch is not needed) or the
# interpreter in $PYTHON, and installs PyInstaller into it when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
py=${PYTHON:-.venv/bin/python}
if [ ! -x "$py" ]; then
    python3 -m venv .venv
    .venv/bin/pip install -q -c constraints.txt -e .
    py=.venv/bin/python
fi
"$py" -c "import PyInstaller" 2>/dev/null || "$py" -m pip install -q -c constraints.txt "pyinstaller>=6"

start=$(date +%s)
"$py" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath dist --workpath build/pyinstaller packaging/factdesk.spec
app="$root/dist/factdesk"
install -m 755 packaging/factdesk-launch.sh "$app/factdesk-launch"
sed -e "s|^Exec=.*|Exec=\"$app/factdesk-launch\" %f|" \
    -e "s|^Icon=.*|Icon=$app/_internal/resources/icons/app.svg|" \
    packaging/factdesk.desktop > "$app/factdesk.desktop"
built=$(( $(date +%s) - start ))

# smoke test: the frozen app analyses the demo with its bundled models, in a scratch data folder
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
env -u DISPLAY -u WAYLAND_DISPLAY XDG_DATA_HOME="$scratch" "$app/factdesk" demo --no-window \
    > "$scratch/demo.txt"
grep -q "each checker.s pair score: .*arc entailment (DAE) [01]\." "$scratch/demo.txt"

echo "built $app in ${built}s, $(du -sh "$app" | cut -f1); demo --no-window: ok"
echo "menu entry: cp $app/factdesk.desktop ~/.local/share/applications/"
