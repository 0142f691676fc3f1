import Foundation

// Shared by every fuzz target (linked into each target's folder): libFuzzer's driver, run with the
// target's own `fuzz(_:_:)` as the function under test.

@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafeRawPointer, Int) -> CInt
) -> CInt

/// The program: libFuzzer's driver, with the fuzz function above as its target.
@main
enum Main {
    static func main() {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runFuzzerDriver(&argc, &argv) { fuzz($0, $1) })
    }
}
