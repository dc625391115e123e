import Foundation
import TrainCore

/// Family Sharing: family groups, and purchases shared with them.
extension SimulatedAppStore {
    /// The family groups, by organizer.
    public var families: [FamilyGroup] {
        settle()
        return state.withLock { $0.families.values.sorted { $0.organizer.email < $1.organizer.email } }
    }

    /// The family group `appleID` is in, if any.
    /// - Parameter appleID: The Apple ID.
    /// - Returns: Its group.
    public func family(of appleID: AppleID) -> FamilyGroup? {
        settle()
        return state.withLock { $0.family(of: appleID) }
    }

    /// Makes a family group with `organizer` in it, as Settings › Family does.
    /// - Parameter organizer: The Apple ID that organizes it.
    /// - Returns: The group.
    /// - Throws: ``TrainCore/TrainErrorCode/alreadyInFamily`` if it is in a group already.
    @discardableResult
    public func createFamily(organizer: AppleID) throws(SubscriptionError) -> FamilyGroup {
        try mutate { state, changes, _ throws(SubscriptionError) in
            guard state.family(of: organizer) == nil else {
                throw SubscriptionError(.alreadyInFamily, detail: "\(organizer) is in a family group already.")
            }
            let family = FamilyGroup(organizer: organizer)
            state.families[organizer] = family
            changes.families.insert(organizer)
            return family
        }
    }

    /// Adds `member` to the family group `organizer` organizes. The member shares at once
    /// what the others bought to share and still have, each as a transaction of their own.
    /// - Parameters:
    ///   - member: The Apple ID that joins.
    ///   - organizer: The group's organizer.
    /// - Throws: ``TrainCore/TrainErrorCode/notInFamily`` if `organizer` organizes no group;
    ///   ``TrainCore/TrainErrorCode/alreadyInFamily`` if `member` is in a group (this one
    ///   or another); ``TrainCore/TrainErrorCode/familyFull`` at six people. Nothing changes then.
    public func addToFamily(_ member: AppleID, organizer: AppleID) throws(SubscriptionError) {
        try mutate { state, changes, now throws(SubscriptionError) in
            guard var family = state.families[organizer] else {
                throw SubscriptionError(.notInFamily, detail: "\(organizer) organizes no family group.")
            }
            guard state.family(of: member) == nil else {
                throw SubscriptionError(.alreadyInFamily, detail: "\(member) is in a family group already.")
            }
            guard family.everyone.count < FamilyGroup.maximumSize else {
                throw SubscriptionError(.familyFull, detail: "The family group of \(organizer) has \(FamilyGroup.maximumSize) people.")
            }
            family.members.append(member)
            state.families[organizer] = family
            changes.families.insert(organizer)
            for subscription in state.subscriptions.values.sorted(by: { $0.originalID < $1.originalID })
            where family.contains(subscription.owner) && subscription.owner != member && subscription.grantsAccess(at: now) {
                share(subscription: subscription, with: [member], state: &state, changes: &changes, now: now)
            }
            for owner in family.everyone where owner != member {
                for id in state.nonConsumables[owner] ?? [] {
                    guard let bought = state.entries[id]?.transaction, bought.revocationDate == nil,
                        product(bought.productID)?.isFamilyShareable == true
                    else { continue }
                    share(nonConsumable: bought, of: owner, with: [member], state: &state, changes: &changes, now: now)
                }
            }
        }
    }

    /// Takes `member` out of its family group, as leaving it or being removed does: it
    /// loses what the others shared with it, and they lose what it shared with them (a
    /// `REVOKE` for each). The organizer leaving ends the group.
    /// - Parameter member: The Apple ID that leaves.
    /// - Throws: ``TrainCore/TrainErrorCode/notInFamily`` if it is in no group.
    public func removeFromFamily(_ member: AppleID) throws(SubscriptionError) {
        try mutate { state, changes, now throws(SubscriptionError) in
            guard var family = state.family(of: member) else {
                throw SubscriptionError(.notInFamily, detail: "\(member) is in no family group.")
            }
            let leaving = family.organizer == member ? family.everyone : [member]
            for share in state.shares.values.sorted(by: { $0.key < $1.key }) {
                let purchaser = purchaser(of: share, in: state)
                guard leaving.contains(share.member) || purchaser.map(leaving.contains) == true else { continue }
                revoke(share, reason: .other, state: &state, changes: &changes, now: now)
            }
            if family.organizer == member {
                state.families[family.organizer] = nil
            } else {
                family.members.removeAll { $0 == member }
                state.families[family.organizer] = family
            }
            changes.families.insert(family.organizer)
        }
    }

    // MARK: - Sharing

    /// Who bought what `share` shares.
    func purchaser(of share: StoreLedger.Share, in state: State) -> AppleID? {
        state.subscriptions[share.purchase]?.owner ?? state.entries[share.purchase]?.owner
    }

    /// Shares a subscription that just began (a purchase, a resubscription) with the rest
    /// of its owner's family group, when its product is shared.
    func shareWithFamily(_ subscription: StoreLedger.Subscription, state: inout State, changes: inout Changes, now: Date) {
        guard let index = productIndex(subscription.productID), products[index].isFamilyShareable, let family = state.family(of: subscription.owner)
        else { return }
        share(subscription: subscription, with: family.everyone.filter { $0 != subscription.owner }, state: &state, changes: &changes, now: now)
    }

    /// Shares a non-consumable just bought with the rest of its buyer's family group.
    func shareWithFamily(nonConsumable transaction: AppStoreTransaction, of owner: AppleID, state: inout State, changes: inout Changes, now: Date) {
        guard product(transaction.productID)?.isFamilyShareable == true, let family = state.family(of: owner) else { return }
        share(nonConsumable: transaction, of: owner, with: family.everyone.filter { $0 != owner }, state: &state, changes: &changes, now: now)
    }

    /// Gives each of `members` a transaction of its own for `subscription`'s current
    /// period — continuing the member's chain of it if it had one — and sends it `SUBSCRIBED`.
    private func share(
        subscription: StoreLedger.Subscription, with members: [AppleID], state: inout State, changes: inout Changes, now: Date
    ) {
        guard let purchased = state.entries[subscription.latestTransactionID]?.transaction else { return }
        for member in members {
            let key = StoreLedger.Share.key(subscription.originalID, member)
            let chain = state.shares[key]?.originalID
            let transaction = newSharedTransaction(mirroring: purchased, for: member, chain: chain, state: &state, changes: &changes)
            let share = StoreLedger.Share(
                purchase: subscription.originalID, member: member, originalID: chain ?? transaction.id, latestTransactionID: transaction.id)
            state.setShare(share, key: key, &changes)
            notify(
                .subscribed, chain == nil ? .initialBuy : .resubscribe, about: memberView(of: subscription, for: share), state: state,
                changes: &changes, now: now)
        }
    }

    /// Gives each of `members` a transaction of its own for the non-consumable `transaction`,
    /// and sends it `ONE_TIME_CHARGE`.
    private func share(
        nonConsumable transaction: AppStoreTransaction, of owner: AppleID, with members: [AppleID], state: inout State,
        changes: inout Changes, now: Date
    ) {
        for member in members where state.shares[StoreLedger.Share.key(transaction.id, member)] == nil {
            let shared = newSharedTransaction(mirroring: transaction, for: member, chain: nil, state: &state, changes: &changes)
            let share = StoreLedger.Share(purchase: transaction.id, member: member, originalID: shared.id, latestTransactionID: shared.id)
            state.setShare(share, key: share.key, &changes)
            notify(.oneTimeCharge, transactionID: shared.id, subscription: nil, state: state, changes: &changes, now: now)
        }
    }

    /// After `subscription` renewed, or was upgraded into a new period: gives each member
    /// it is shared with the same period as a transaction of its own. An upgrade into a
    /// product that is not shared ends the sharing.
    func mirrorNewPeriod(of subscription: StoreLedger.Subscription, state: inout State, changes: inout Changes) {
        let shares = state.shares(of: subscription.originalID)
        guard !shares.isEmpty, let purchased = state.entries[subscription.latestTransactionID]?.transaction else { return }
        guard product(purchased.productID)?.isFamilyShareable == true else {
            for share in shares { state.setShare(nil, key: share.key, &changes) }
            return
        }
        for var share in shares where state.entries[share.latestTransactionID]?.transaction.revocationDate == nil {
            let transaction = newSharedTransaction(mirroring: purchased, for: share.member, chain: share.originalID, state: &state, changes: &changes)
            share.latestTransactionID = transaction.id
            state.setShare(share, key: share.key, &changes)
        }
    }

    /// Changes the members' latest transactions of `purchase` as `body` changed the purchaser's.
    func mirrorChange(of purchase: UInt64, state: inout State, changes: inout Changes, _ body: (inout AppStoreTransaction) -> Void) {
        for share in state.shares(of: purchase) { update(share.latestTransactionID, &state, &changes, body) }
    }

    /// Ends a share: the member's latest transaction of it is revoked, and it is sent `REVOKE`.
    func revoke(_ share: StoreLedger.Share, reason: TransactionRevocationReason, state: inout State, changes: inout Changes, now: Date) {
        if state.entries[share.latestTransactionID]?.transaction.revocationDate == nil {
            update(share.latestTransactionID, &state, &changes) {
                $0.revocationDate = now
                $0.revocationReason = reason
            }
        }
        let subscription = state.subscriptions[share.purchase].map { memberView(of: $0, for: share, revoked: true) }
        notify(.revoke, transactionID: share.latestTransactionID, subscription: subscription, state: state, changes: &changes, now: now)
        state.setShare(nil, key: share.key, &changes)
    }

    /// Ends every share of `purchase`, as its refund does.
    func revokeShares(of purchase: UInt64, reason: TransactionRevocationReason, state: inout State, changes: inout Changes, now: Date) {
        for share in state.shares(of: purchase) { revoke(share, reason: reason, state: &state, changes: &changes, now: now) }
    }

    /// `subscription` as `share`'s member has it: its own chain and latest transaction.
    func memberView(of subscription: StoreLedger.Subscription, for share: StoreLedger.Share, revoked: Bool = false) -> StoreLedger.Subscription {
        var view = subscription
        view.originalID = share.originalID
        view.latestTransactionID = share.latestTransactionID
        view.owner = share.member
        view.appAccountToken = nil
        if revoked { view.state = .revoked }
        return view
    }

    /// Records a transaction of `member` that mirrors the purchaser's `purchased`: the same
    /// product and dates, owned through Family Sharing, with no price or offer of its own.
    private func newSharedTransaction(
        mirroring purchased: AppStoreTransaction, for member: AppleID, chain: UInt64?, state: inout State, changes: inout Changes
    ) -> AppStoreTransaction {
        let id = state.nextID
        state.nextID += 1
        var transaction = purchased
        transaction.id = id
        transaction.originalID = chain ?? id
        transaction.ownershipType = .familyShared
        transaction.appAccountToken = nil
        transaction.offer = nil
        transaction.price = nil
        transaction.isUpgraded = false
        transaction.revocationDate = nil
        transaction.revocationReason = nil
        transaction.originalPurchaseDate = chain.flatMap { state.entries[$0]?.transaction.purchaseDate } ?? purchased.purchaseDate
        let entry = StoreLedger.Entry(transaction: transaction, owner: member, verified: !state.settings.producesUnverifiedTransactions)
        state.entries[id] = entry
        changes.entries.insert(id)
        changes.events.append(.transaction(entry.result, owner: member, revision: entry.revision, returnedByPurchase: false))
        return transaction
    }
}
