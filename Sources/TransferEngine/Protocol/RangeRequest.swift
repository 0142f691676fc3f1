/// The request side of resuming: which headers to send for the bytes already on disk.
public enum RangeRequest {
    /// `Range: bytes=N-` with `If-Range: <validator>` when there are bytes to keep and a validator
    /// to keep them safely; nothing otherwise (the download starts over).
    ///
    /// Without a usable validator a range request could splice two versions of the resource, so
    /// it is not made.
    public static func headers(bytesOnDisk: Int64, validator: Validator) -> [(name: String, value: String)] {
        guard bytesOnDisk > 0, let ifRange = validator.ifRange else { return [] }
        return [("Range", "bytes=\(bytesOnDisk)-"), ("If-Range", ifRange)]
    }

    /// The offset a request made with ``headers(bytesOnDisk:validator:)`` asks to start from.
    public static func requestedOffset(bytesOnDisk: Int64, validator: Validator) -> Int64 {
        bytesOnDisk > 0 && validator.ifRange != nil ? bytesOnDisk : 0
    }
}
