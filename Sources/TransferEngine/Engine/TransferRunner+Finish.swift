import Foundation

extension TransferRunner {
    /// Cuts the partial file at `length` bytes, lets the finisher make its finished version, and
    /// flushes (unless told not to) and renames the result into place.
    ///
    /// With a finisher, the partial file stays as it is until the finished version is in place,
    /// and goes after: a crash at any point leaves either the complete partial file (finished
    /// again on resume) or the finished file.
    ///
    /// A body stored with a content coding the transfer asked for is decoded first, into a file
    /// beside the destination that then stands for the partial file; the encoded one goes once
    /// the decoded file is in place (see ``ContentDecoding``).
    func finish(_ job: TransferJob, file open: PartialFile? = nil, length: Int64) async -> AttemptResult {
        do throws(TransferError) {
            var file: PartialFile
            if let open {
                file = open
            } else {
                file = try PartialFile(path: job.partialPath, offset: length, flushes: durability.flushes)
            }
            var job = job
            if let coding = ContentDecoding.coding(request: job.headers, contentEncoding: job.contentEncoding) {
                file.close()
                let (encoded, decoded, flushes) = (job.partialPath, job.destinationPath + ".decoded", durability.flushes)
                let size = try await FileWork.run { () throws(TransferError) in
                    try ContentDecoding.decode(encoded, coding: coding, into: decoded, flushes: flushes)
                }
                file = try PartialFile(path: decoded, offset: size, flushes: flushes)
                job.partialPath = decoded
                let result = await finish(job, file: file, finisher: finisher)
                // Kept until the decoded file is in place: a resume finds the body still whole.
                if case .completed = result { unlink(encoded) } else { PartialFile.remove(decoded) }
                return result
            }
            return await finish(job, file: file, finisher: finisher)
        } catch {
            return .failed(error)
        }
    }

    /// The finish of a complete `file` (the partial file, or its decoded version).
    private func finish(_ job: TransferJob, file: PartialFile, finisher: TransferFinisher?) async -> AttemptResult {
        let length = file.length
        do throws(TransferError) {
            guard let finisher else {
                try await file.finish(at: job.destinationPath, folders: folders)
                return .completed(length)
            }
            // Twice already the process ended while this file was being finished: it is set aside,
            // its bytes kept, rather than end the process again (every other transfer goes on).
            let tries = FinishingTries(partialPath: job.partialPath)
            let suspect = tries.count
            if suspect >= FinishingTries.limit {
                file.close()
                return .failed(.finishingInterrupted)
            }
            defer { tries.clear() }
            // The partial file stays open: when the finisher declines, it goes into place as it is.
            let replacement = job.destinationPath + ".finishing"
            // A replacement can be left over only beside a partial file made before this attempt
            // (a finisher stopped by a crash); one this attempt made has none to look for.
            let leftover = !file.created
            if leftover { PartialFile.remove(replacement) }
            // Paths: a finisher that works with paths (the tagger) makes no URL per download.
            let download = CompletedDownload(
                transferID: job.id, tag: job.tag, filePath: job.partialPath, replacementPath: replacement,
                destinationPath: job.destinationPath)
            await finishing.enter(exclusive: suspect > 0)
            tries.begin()
            let finished = await finisher(download)
            await finishing.leave(exclusive: suspect > 0)
            if Task.isCancelled {
                // Paused or closed while finishing: the complete partial file stays, and is
                // finished again when the transfer resumes (the server then has no byte to send).
                file.close()
                PartialFile.remove(replacement)
                return .stopped
            }
            if finished, PartialFile.length(at: replacement) > 0 {
                file.close()
                try await FinishedFile.move(
                    replacement, to: job.destinationPath, flushing: durability.flushes, folders: folders)
                unlink(job.partialPath)
            } else {
                // A finisher that declines leaves nothing (``TransferFinisher``); one that said
                // it wrote a replacement and left none or an empty one is tidied after.
                if leftover || finished { PartialFile.remove(replacement) }
                try await file.finish(at: job.destinationPath, folders: folders)
            }
        } catch {
            return .failed(error)
        }
        return .completed(length)
    }
}
