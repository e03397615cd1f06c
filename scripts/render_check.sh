#!/usr/bin/env bash
# render_check.sh FILE.html [OUT.png]: renders an HTML report with headless Chromium, offline, and
# checks that (1) the screenshot exists, has the window's size and is not blank, (2) the DOM after
# scripts ran still holds every <svg> of the file, each with something drawn or "No data", and
# (3) the page logged no script error. OUT.png defaults to FILE.png. Exit 0 when all hold, 1 when
# a check fails, 2 on bad usage or a missing tool (Debian: apt-get install -y chromium).
set -euo pipefail

usage() { echo "usage: render_check.sh FILE.html [OUT.png]" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
html=$1
[ -f "$html" ] || { echo "render_check: no such file: $html" >&2; exit 2; }
out=${2:-${html%.html}.png}
command -v chromium >/dev/null || { echo "render_check: chromium not found (apt-get install -y chromium)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "render_check: python3 not found" >&2; exit 2; }

width=1280
height=2000
url="file://$(realpath "$html")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Every request other than the file itself fails to resolve: the page must not need the network.
browse() {
  chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$work/profile-$1" \
    --host-resolver-rules="MAP * ~NOTFOUND" --enable-logging=stderr --v=0 \
    --window-size=$width,$height "${@:2}" "$url"
}

rm -f "$out"
browse shot --screenshot="$out" >"$work/shot.out" 2>"$work/shot.err" || true
browse dom --dump-dom >"$work/dom.html" 2>"$work/dom.err" || true

python3 - "$html" "$out" "$work/dom.html" "$work/shot.err" "$work/dom.err" $width $height <<'PY'
import re, struct, sys, zlib

html_path, png_path, dom_path, err1, err2, want_w, want_h = sys.argv[1:8]
failures = []

def decode_png(path):
    """Returns (width, height, channels, rows) for 8-bit RGB/RGBA PNGs, rows unfiltered."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {ctype})")
    bpp = 3 if ctype == 2 else 4
    raw, stride, rows, prev = zlib.decompress(b"".join(idat)), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride): line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows

try:
    w, h, bpp, rows = decode_png(png_path)
    if (w, h) != (int(want_w), int(want_h)):
        failures.append(f"screenshot is {w}x{h}, expected {want_w}x{want_h}")
    counts = {}
    for row in rows[::4]:
        for x in range(0, w * bpp, 4 * bpp):
            px = row[x:x + 3]
            counts[px] = counts.get(px, 0) + 1
    total = sum(counts.values())
    background = max(counts.values())
    inked = 100.0 * (total - background) / total
    if len(counts) < 16 or inked < 1.0:
        failures.append(f"screenshot looks blank ({len(counts)} colours, {inked:.1f}% non-background)")
except (OSError, ValueError, TypeError, zlib.error) as e:
    failures.append(f"no usable screenshot at {png_path}: {e}")
    inked, counts = 0.0, {}

source = open(html_path, encoding="utf-8", errors="replace").read()
dom = open(dom_path, encoding="utf-8", errors="replace").read()
want_svgs = len(re.findall(r"<svg\b", source))
svgs = re.findall(r"<svg\b.*?</svg>", dom, re.S)
if len(svgs) != want_svgs:
    failures.append(f"DOM has {len(svgs)} <svg> elements, the file has {want_svgs}")
for i, svg in enumerate(svgs):
    if not re.search(r"<(polyline|polygon|circle)\b", svg) and "No data" not in svg:
        failures.append(f"<svg> #{i + 1} draws nothing")
if "</html>" not in dom:
    failures.append("--dump-dom returned no document")

errors = []
for path in (err1, err2):
    for line in open(path, errors="replace"):
        if "CONSOLE" in line and re.search(r"Uncaught|Error", line):
            errors.append(line.strip())
if errors:
    failures.append("script errors: " + " | ".join(errors[:3]))

if failures:
    for f in failures:
        print("render_check: FAIL: " + f, file=sys.stderr)
    sys.exit(1)
print(f"render_check: OK: {png_path} ({w}x{h}, {len(counts)} colours, {inked:.1f}% non-background), "
      f"{len(svgs)} <svg> in the DOM, no script errors")
PY
