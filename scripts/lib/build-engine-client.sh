# Sourced by scripts/bench and scripts/bench-downloads.
#
#   build_engine_client PRODUCTS CONFIG PRODUCT FLAGS...   # builds PRODUCT into PRODUCTS (the build's
#                                                          # --show-bin-path), its own module afresh
#
# The benchmark programs import the engine through `Transfers`, which re-exports TransferEngine.
# Across that re-export an incremental build misses a change of an engine struct's layout that its
# public interface does not show (a private stored property added), and leaves the program compiled
# against the old layout: `transfer-bench` crashed so after `TransferID` gained a field. Its module
# is small, so it is compiled afresh each time (its object files removed: a few seconds); everything
# it depends on stays incremental. (Removing the module's whole folder breaks the build plan SwiftPM
# keeps, which names files in it.)
build_engine_client() {
  local products=$1 config=$2 product=$3
  shift 3
  rm -f "$products/${product//-/_}.build/"*.o
  swift build -c "$config" -q "$@" --product "$product"
}
