import ArgumentParser
import HalfTunesKit
import ITunesSearch
import Transfers

/// Runs a command body, turning any failure into one line on standard error and exit status 1.
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ExitCode {
        throw error
    } catch let error as DownloadError {
        Terminal.warn(error.description)
        throw ExitCode.failure
    } catch let error as TransferError {
        Terminal.warn(error.message)
        throw ExitCode.failure
    } catch let error as CatalogError {
        Terminal.warn(error.message)
        throw ExitCode.failure
    } catch {
        Terminal.warn("\(error)")
        throw ExitCode.failure
    }
}
