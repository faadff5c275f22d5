#!/usr/bin/env bash
# willy probe on a Linux md RAID-0 of four loop devices with a 64 KiB chunk
# (issue 15, Must show 3), and on one of the loop devices alone. As root.
#
#   bash benches/probe_md.sh [DIR]     # DIR holds the backing files (4 x 1 GiB) and the results
#
# Each loop device has --direct-io=on over a file written with zeros (so
# reads reach the disk, not the page cache). Everything is torn down at the
# end, on error and on Ctrl-C. Needs mdadm and a kernel with the md driver
# (raid0): `cat /proc/mdstat` must exist.
set -euo pipefail
dir=${1:-$(mktemp -d /var/tmp/willy-md.XXXXXX)}
mkdir -p "$dir"
willy=${WILLY:-$(dirname "$0")/../target/release/willy}
command -v mdadm >/dev/null || { echo "probe_md: mdadm is missing (apt-get install mdadm)" >&2; exit 2; }
loops=()
md=""
cleanup() {
  [ -n "$md" ] && mdadm --stop "$md" >/dev/null 2>&1 || true
  for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null || true; done
  rm -f "$dir"/md-*.img
}
trap cleanup EXIT INT TERM
for i in 0 1 2 3; do
  dd if=/dev/zero of="$dir/md-$i.img" bs=1M count=1024 oflag=direct status=none
  loops+=("$(losetup --direct-io=on -f --show "$dir/md-$i.img")")
done
echo "== one loop device alone: ${loops[0]}"
/usr/bin/time -f "took %e s" "$willy" probe --target "${loops[0]}" --json "$dir/loop.json"
if [ ! -e /proc/mdstat ]; then
  echo "probe_md: this kernel has no md driver (no /proc/mdstat; /proc/devices lists: $(sed -n '/Block/,$p' /proc/devices | tail -n +2 | awk '{print $2}' | tr '\n' ' ')): no RAID-0 to probe" >&2
  exit 3
fi
md=/dev/md/willy-probe
mdadm --create "$md" --run --level=0 --chunk=64 --raid-devices=4 "${loops[@]}"
echo "== md RAID-0, 4 x 1 GiB, 64 KiB chunk: $md"
/usr/bin/time -f "took %e s" "$willy" probe --target "$md" --json "$dir/md.json"
echo "results in $dir (loop.json, md.json)"
