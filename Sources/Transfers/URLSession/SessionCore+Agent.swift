import Foundation
import Logging

extension SessionCore {
    /// A background session's claim, handed to the transfer agent before the session opens: an
    /// agent running the session since its last process ended lets go of it first, then goes on
    /// with its tasks if this process ends without invalidating it. Without an agent the session
    /// runs in this process only, and says so once in its log.
    func claimFromAgent() async {
        guard let identifier = configuration.identifier, !configuration.isEphemeral,
            let link = TransferAgentLink.resolve(configuration)
        else { return }
        let claim = BackgroundClaim(
            identifier: identifier, directory: folders.journal, configuration: configuration.engineConfiguration)
        if let failure = await link.claim(claim) {
            logger.notice(
                "the transfer agent does not hold this background session: its downloads stop with this process (the next one goes on with them)",
                metadata: ["identifier": "\(identifier)", "reason": "\(failure)"])
            return
        }
        agentClaim = (link, claim)
        logger.info(
            "the transfer agent goes on with this session's tasks if this process ends", metadata: ["identifier": "\(identifier)"]
        )
    }

    /// Withdraws the claim: the session was invalidated, or never opened.
    func releaseToAgent() async {
        guard let (link, claim) = agentClaim else { return }
        agentClaim = nil
        await link.release(claim)
    }
}
