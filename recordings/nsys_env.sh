# Sourced by the record_*.sh scripts that run nsys (after setting OUT, W and START): the run
# log and `say`, and the nsys bundled with Nsight Compute with the libdw1/libelf1 .deb files
# it needs unpacked from $NSYS_DEPS (default .realtraces/.nsysdeps; see README.md). Sets
# H, T (its target-linux-x64 folder: rules/, reports/), D (QdstrmImporter's folder), NSYS
# and LD_LIBRARY_PATH.
LOG=$OUT/run.log; : > $LOG
say() { echo "[$(( SECONDS - START ))s] $*" | tee -a $LOG; }
DEPS=${NSYS_DEPS:-$(pwd)/.realtraces/.nsysdeps}
H=$(ls -d /opt/nvidia/nsight-compute/*/host 2>/dev/null | head -1)
T=$H/target-linux-x64; D=$(ls -d $H/linux-desktop-* 2>/dev/null | head -1)
NSYS=$(command -v nsys || echo $T/nsys)
mkdir -p /tmp/deps && for f in $DEPS/*.deb; do dpkg -x $f /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$D
