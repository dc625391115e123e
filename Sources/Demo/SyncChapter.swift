import Foundation
import TrainAccount
import TrainAuth
import TrainCore
import TrainSync
import TrainTesting

/// Ada keeps her training plans on her phone and her tablet. Both edit the same plan
/// offline; when they sync, the edits to different fields both survive, the notes
/// both rewrote go to the later edit by hybrid clock, and the losing text is kept.
/// A deletion on one device reaches the other.
@MainActor
struct SyncChapter {
    let services: TrainServices
    let session: UserSessionManager
    let clock: DemoClock
    let narrator: Narrator

    func run() async {
        guard let ada = session.currentUser else {
            await narrator.step("Plans need a signed-in user") { "nobody is signed in" }
            return
        }
        let phone = services.plans
        var opened: TrainServices?
        await narrator.step("Ada's phone is the stack; her tablet is a second device in its world, keeping its plans in its own file") {
            opened = try services.makeDevice(for: ada.id)
            return nil
        }
        guard let tablet = opened?.plans else { return }

        var created: TrainingPlan?
        await narrator.step("The phone makes a plan and syncs; the tablet downloads it") {
            let start = clock.now
            let plan = try await phone.createPlan(
                TrainingPlan(
                    name: "Spring 10k", notes: "Easy weeks first.", startDate: start, endDate: start.addingTimeInterval(8 * 7 * 86_400),
                    daysPerWeek: 3,
                    weeklyWorkouts: [PlannedWorkout(title: "Easy run", minutes: 40), PlannedWorkout(title: "Long run", minutes: 80)]))
            narrator.say("Before the sync the phone shows it as \(try phone.status(ofPlan: plan.id).map { "\($0)" } ?? "missing").")
            try await phone.sync()
            let report = try await tablet.sync()
            created = plan
            guard try tablet.plan(id: plan.id)?.name == "Spring 10k" else { return "the tablet does not have the plan" }
            narrator.say("The tablet downloaded \(report.downloaded) plan(s) in \(report.remoteCalls) remote call(s).")
            return try phone.status(ofPlan: plan.id) == .synced ? nil : "the phone's plan is not synced"
        }
        guard let plan = created else { return }

        await narrator.step(
            "Offline, the phone renames the plan and rewrites the notes; a minute later the tablet changes the days per week and rewrites the notes"
        ) {
            services.network.conditions = .offline
            var onPhone = plan
            onPhone.name = "Spring 10k — sub 50"
            onPhone.notes = "Hills on Tuesdays."
            _ = try await phone.updatePlan(onPhone)
            try clock.advance(by: .seconds(60))
            var onTablet = plan
            onTablet.daysPerWeek = 4
            onTablet.notes = "Intervals on Thursdays."
            _ = try await tablet.updatePlan(onTablet)
            let statuses = [try phone.status(ofPlan: plan.id), try tablet.status(ofPlan: plan.id)]
            narrator.say("Both wait to upload: \(statuses.map { $0.map { "\($0)" } ?? "missing" }.joined(separator: ", ")).")
            return statuses == [.pendingUpload, .pendingUpload] ? nil : "the edits are not queued"
        }

        await narrator.step("Back online, both sync: the name and the days both survive, the later notes win, and the losing notes are kept") {
            services.network.conditions = .online
            try await phone.sync()
            let report = try await tablet.sync()
            try await phone.sync()
            let merged = [try phone.plan(id: plan.id), try tablet.plan(id: plan.id)]
            guard merged[0] == merged[1], let result = merged[0] else { return "the devices differ: \(merged)" }
            narrator.say(
                "Both devices: \"\(result.name)\", \(result.daysPerWeek) days a week, notes \"\(result.notes)\" (\(report.conflicts) conflict resolved)."
            )
            guard let lost = try tablet.conflictLog().last(where: { $0.recordID == plan.id && $0.field == "notes" }) else {
                return "no losing notes were kept"
            }
            narrator.say("The notes that lost, kept for Ada to restore: \"\(try lost.losingValue(as: String.self))\".")
            return result.name == "Spring 10k — sub 50" && result.daysPerWeek == 4 && result.notes == "Intervals on Thursdays."
                ? nil : "the merge kept the wrong values"
        }

        await narrator.step("The tablet deletes the plan; after both sync it is gone from the phone too") {
            try await tablet.deletePlan(id: plan.id)
            try await tablet.sync()
            try await phone.sync()
            let left = try phone.plan(id: plan.id)
            narrator.say("Ada has \(try phone.plans().count) plan(s) on the phone and \(try tablet.plans().count) on the tablet.")
            return left == nil ? nil : "the phone still has the plan"
        }
    }
}
