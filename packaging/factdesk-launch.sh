#!/bin/sh
# The desktop entry's command: `factdesk open FILE` for a file, the empty window otherwise.
here=$(dirname "$(readlink -f "$0")")
if [ $# -gt 0 ]; then
    exec "$here/factdesk" open "$1"
fi
exec "$here/factdesk"
