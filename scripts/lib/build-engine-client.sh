# Sourced by scripts/bench and scripts/bench-downloads.
#
#   build_engine_client CONFIG PRODUCT FLAGS...   # builds PRODUCT, its own module compiled afresh
#
# The benchmark programs import the engine through `Transfers`, which re-exports TransferEngine.
# Across that re-export an incremental build misses a change of an engine struct's layout that its
# public interface does not show (a private stored property added), and leaves the program compiled
# against the old layout: `transfer-bench` crashed so after `TransferID` gained a field. Its module
# is small, so it is compiled afresh each time (its object files removed: a few seconds); everything
# it depends on stays incremental. (Removing the module's whole folder breaks the build plan SwiftPM
# keeps, which names files in it.)
build_engine_client() {
  local config=$1 product=$2
  shift 2
  local products
  products=$(swift build -c "$config" "$@" --show-bin-path)
  rm -f "$products/${product//-/_}.build/"*.o
  swift build -c "$config" -q "$@" --product "$product"
}
