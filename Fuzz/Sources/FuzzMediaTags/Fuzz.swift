import FuzzSupport

/// libFuzzer entry: any bytes as a music file, tagged and timed (see ``MediaChecks``).
func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    MediaChecks.check(Array(UnsafeRawBufferPointer(start: start, count: count)))
    return 0
}
