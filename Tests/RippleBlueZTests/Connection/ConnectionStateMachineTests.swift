import Testing

@testable import RippleBlueZ

/// Every event in every state of the connection machine, with the state it leads to and the actions in
/// order, or the refusal of an event that cannot happen there. No bus: the machine is a value.
@Suite struct ConnectionStateMachineTests {
    typealias Machine = ConnectionStateMachine
    typealias State = Machine.State
    typealias Action = Machine.Action
    typealias Attempt = Machine.Attempt

    /// What an event does in a state: the state it leads to and the actions, or a refusal.
    typealias Outcome = TransitionOutcome<State, Action>

    static let address: BluetoothAddress = "C0:FF:EE:00:00:01"
    static let timeout: Duration = .seconds(10)
    static let policy = ReconnectPolicy(delays: [.milliseconds(10), .milliseconds(20)], maximumAttempts: 3)

    static let transient = BluetoothError(
        .connectionFailed, "connecting failed: le-connection-abort-by-local", bluezName: "org.bluez.Error.Failed",
        bluezMessage: "le-connection-abort-by-local")
    static let permanent = BluetoothError(
        .connectionFailed, "connecting failed: le-connection-abort-by-remote", bluezName: "org.bluez.Error.Failed",
        bluezMessage: "le-connection-abort-by-remote")
    static let boom = BluetoothError(.failed, "boom")
    static let taskError = BluetoothError(.connectionFailed, "a connection task failed: wrong PIN")

    // The errors the machine makes.
    static let cancelled = BluetoothError(.cancelled, "the connection attempt was cancelled")
    static let cancelledByDisconnect = BluetoothError(.cancelled, "the connection was cancelled by disconnect")
    static let removed = BluetoothError(
        .connectionFailed, "the peripheral was removed before its services were resolved")
    static let dropped = BluetoothError(
        .connectionFailed, "the link dropped before the services were resolved: Unspecified",
        bluezMessage: "Unspecified")
    static let unreadable = BluetoothError(
        .connectionFailed, "connecting to \(address): the services could not be read: boom")
    static let timedOut = BluetoothError(
        .timeout, "connecting to \(address) (no connection within 10.0 seconds) timed out")
    static let timedOutAgain = BluetoothError(
        .timeout, "connecting to \(address) (no connection within 30.0 seconds) timed out")
    static let timedOutAfterRetry = BluetoothError(
        .timeout,
        "connecting to \(address) timed out: no connection within 10.0 seconds "
            + "(1 call of Connect(), bluetoothd last answered le-connection-abort-by-local)",
        bluezName: "org.bluez.Error.Failed", bluezMessage: "le-connection-abort-by-local")
    static let lost = DisconnectReason(name: DisconnectReason.unknown.name, message: "boom")
    static let notFound = BluetoothError(.peripheralNotFound, "bluetoothd no longer knows \(address)")

    static func gaveUp(_ error: BluetoothError) -> BluetoothError {
        BluetoothError(
            .connectionFailed, "gave up reconnecting: \(error.message)", bluezName: error.bluezName,
            bluezMessage: error.bluezMessage)
    }

    static func attempt(
        _ subscribers: Set<Int> = [1], reconnection: Int? = nil, calls: Int = 1, timeout: Duration = timeout,
        last: BluetoothError? = nil
    ) -> Attempt {
        Attempt(
            subscribers: subscribers, reconnection: reconnection, calls: calls, timeout: timeout,
            lastTransientError: last)
    }

    /// The events, each under a name the table uses.
    static let events: [(String, Machine.Event)] = [
        ("connect", .connectRequested(subscriber: 2, timeout: timeout, alreadyResolved: false, policy: nil)),
        ("connectResolved", .connectRequested(subscriber: 2, timeout: timeout, alreadyResolved: true, policy: nil)),
        ("subscriberLeft", .subscriberLeft(1)),
        ("connectAnswered", .connectAnswered),
        ("connectFailedTransiently", .connectFailed(transient)),
        ("connectFailed", .connectFailed(permanent)),
        ("retryTimerFired", .retryTimerFired),
        ("deadlinePassed", .deadlinePassed),
        ("linkUp", .linkUp),
        ("linkDown", .linkDown(.unknown, canReconnectNow: true)),
        ("linkDownHeld", .linkDown(.unknown, canReconnectNow: false)),
        ("servicesResolved", .servicesResolved),
        ("treeRefreshed", .treeRefreshed(hasTasks: false)),
        ("treeRefreshedWithTasks", .treeRefreshed(hasTasks: true)),
        ("refreshFailed", .refreshFailed(boom)),
        ("tasksFinished", .tasksFinished),
        ("tasksFailed", .tasksFailed(taskError)),
        ("deviceRemoved", .deviceRemoved(canReconnectNow: true)),
        ("disconnectRequested", .disconnectRequested),
        ("disconnectAnswered", .disconnectAnswered),
        ("disconnectFailed", .disconnectFailed(boom)),
        ("reconnectTimerFired", .reconnectTimerFired(timeout: .seconds(30), device: .known)),
        ("reconnectTimerFiredAbsent", .reconnectTimerFired(timeout: .seconds(30), device: .absent)),
        ("reconnectTimerFiredResolved", .reconnectTimerFired(timeout: .seconds(30), device: .connectedAndResolved)),
        ("bluetoothLost", .bluetoothLost(boom, final: false)),
        ("bluetoothLostFinally", .bluetoothLost(boom, final: true)),
        ("reconnectAllowed", .reconnectAllowed),
    ]

    /// A start state: its name, the state, whether the peripheral is under ``policy``, and what each
    /// event (by name) does there.
    struct Row {
        let name: String
        let state: State
        let underPolicy: Bool
        let outcomes: [String: Outcome]
    }

    /// The outcomes an attempt by the user (subscriber 1, no policy) shares in every attempt state.
    static func userAttempt(_ state: State, adding added: State) -> [String: Outcome] {
        [
            "connect": .to(added, []),
            "connectResolved": .to(added, []),
            "subscriberLeft": .to(
                .disconnected, [.endAttempt, .takeLinkDown, .announce(.failed(cancelled)), .publish]),
            "deviceRemoved": .to(.idle, [.endAttempt, .announce(.failed(removed)), .fail([1], removed), .publish]),
            "disconnectRequested": .to(
                .disconnecting,
                [.endAttempt, .announce(.failed(cancelledByDisconnect)), .fail([1], cancelledByDisconnect), .publish]),
            "disconnectAnswered": .to(state, []),
            "disconnectFailed": .to(state, []),
            "reconnectTimerFired": .refused,
            "reconnectTimerFiredAbsent": .refused,
            "reconnectTimerFiredResolved": .refused,
            "bluetoothLost": .to(
                .disconnected, [.endAttempt, .announce(.failed(boom)), .fail([1], boom), .publish]),
            "bluetoothLostFinally": .to(
                .disconnected, [.endAttempt, .announce(.failed(boom)), .fail([1], boom), .publish]),
            "reconnectAllowed": .to(state, []),
        ]
    }

    static let rows: [Row] = {
        let a = attempt()
        let a12 = attempt([1, 2])
        let retrying = attempt(last: transient)
        let fresh = attempt([2])
        let freshResolved = attempt([2], calls: 0)
        let newAttempt: Outcome = .to(
            .connecting(fresh), [.beginAttempt(timeout: timeout), .announce(.connecting), .callConnect, .publish])
        let newResolvedAttempt: Outcome = .to(
            .refreshing(freshResolved),
            [.beginAttempt(timeout: timeout), .announce(.connecting), .announce(.connected), .refreshTree, .publish])
        let droppedOutcome: Outcome = .to(
            .idle, [.endAttempt, .announce(.failed(dropped)), .fail([1], dropped), .publish])
        let timeoutOutcome: Outcome = .to(
            .disconnected, [.endAttempt, .takeLinkDown, .announce(.failed(timedOut)), .fail([1], timedOut), .publish])

        var rows: [Row] = []
        rows.append(
            Row(
                name: "idle", state: .idle, underPolicy: false,
                outcomes: [
                    "connect": newAttempt, "connectResolved": newResolvedAttempt,
                    "subscriberLeft": .to(.idle, []), "connectAnswered": .refused, "connectFailedTransiently": .refused,
                    "connectFailed": .refused, "retryTimerFired": .refused, "deadlinePassed": .refused,
                    "linkUp": .to(.idle, []),
                    "linkDown": .to(.idle, [.endListeners(Machine.linkEnded(.unknown))]),
                    "linkDownHeld": .to(.idle, [.endListeners(Machine.linkEnded(.unknown))]),
                    "servicesResolved": .to(.idle, []), "treeRefreshed": .refused, "treeRefreshedWithTasks": .refused,
                    "refreshFailed": .refused, "tasksFinished": .refused, "tasksFailed": .refused,
                    "deviceRemoved": .to(.idle, []), "disconnectRequested": .to(.disconnecting, [.publish]),
                    "disconnectAnswered": .to(.idle, []), "disconnectFailed": .to(.idle, []),
                    "reconnectTimerFired": .refused, "reconnectTimerFiredAbsent": .refused,
                    "reconnectTimerFiredResolved": .refused,
                    "bluetoothLost": .to(.idle, [.endListeners(boom)]),
                    "bluetoothLostFinally": .to(.idle, [.endListeners(boom)]), "reconnectAllowed": .to(.idle, []),
                ]))
        rows.append(
            Row(
                name: "connecting", state: .connecting(a), underPolicy: false,
                outcomes: userAttempt(.connecting(a), adding: .connecting(a12)).merging([
                    "connectAnswered": .to(.linkUp(a), [.announce(.connected), .publish]),
                    "connectFailedTransiently": .to(.waitingToRetry(retrying), [.armRetry(.milliseconds(100))]),
                    "connectFailed": .to(
                        .idle, [.endAttempt, .announce(.failed(permanent)), .fail([1], permanent), .publish]),
                    "retryTimerFired": .refused, "deadlinePassed": timeoutOutcome,
                    "linkUp": .to(.linkUp(a), [.announce(.connected), .publish]),
                    "linkDown": .to(.connecting(a), []), "linkDownHeld": .to(.connecting(a), []),
                    "servicesResolved": .to(.refreshing(a), [.announce(.connected), .refreshTree, .publish]),
                    "treeRefreshed": .refused, "treeRefreshedWithTasks": .refused, "refreshFailed": .refused,
                    "tasksFinished": .refused, "tasksFailed": .refused,
                ]) { _, new in new }))
        rows.append(
            Row(
                name: "waitingToRetry", state: .waitingToRetry(retrying), underPolicy: false,
                outcomes: userAttempt(
                    .waitingToRetry(retrying), adding: .waitingToRetry(attempt([1, 2], last: transient))
                )
                .merging([
                    "connectAnswered": .refused, "connectFailedTransiently": .refused, "connectFailed": .refused,
                    "retryTimerFired": .to(.connecting(attempt(calls: 2, last: transient)), [.callConnect]),
                    "deadlinePassed": .to(
                        .disconnected,
                        [
                            .endAttempt, .takeLinkDown, .announce(.failed(timedOutAfterRetry)),
                            .fail([1], timedOutAfterRetry), .publish,
                        ]),
                    "linkUp": .to(.linkUp(retrying), [.cancelRetry, .announce(.connected), .publish]),
                    "linkDown": .to(.waitingToRetry(retrying), []),
                    "linkDownHeld": .to(.waitingToRetry(retrying), []),
                    "servicesResolved": .to(
                        .refreshing(retrying), [.cancelRetry, .announce(.connected), .refreshTree, .publish]),
                    "treeRefreshed": .refused, "treeRefreshedWithTasks": .refused, "refreshFailed": .refused,
                    "tasksFinished": .refused, "tasksFailed": .refused,
                ]) { _, new in new }))
        rows.append(
            Row(
                name: "linkUp", state: .linkUp(a), underPolicy: false,
                outcomes: userAttempt(.linkUp(a), adding: .linkUp(a12)).merging([
                    "connectAnswered": .to(.linkUp(a), []),
                    "connectFailedTransiently": .to(
                        .disconnected,
                        [.endAttempt, .takeLinkDown, .announce(.failed(transient)), .fail([1], transient), .publish]),
                    "connectFailed": .to(
                        .disconnected,
                        [.endAttempt, .takeLinkDown, .announce(.failed(permanent)), .fail([1], permanent), .publish]),
                    "retryTimerFired": .refused, "deadlinePassed": timeoutOutcome, "linkUp": .to(.linkUp(a), []),
                    "linkDown": droppedOutcome, "linkDownHeld": droppedOutcome,
                    "servicesResolved": .to(.refreshing(a), [.refreshTree]),
                    "treeRefreshed": .refused, "treeRefreshedWithTasks": .refused, "refreshFailed": .refused,
                    "tasksFinished": .refused, "tasksFailed": .refused,
                ]) { _, new in new }))
        rows.append(
            Row(
                name: "refreshing", state: .refreshing(a), underPolicy: false,
                outcomes: userAttempt(.refreshing(a), adding: .refreshing(a12)).merging([
                    "connectAnswered": .to(.refreshing(a), []), "connectFailedTransiently": .refused,
                    "connectFailed": .refused, "retryTimerFired": .refused, "deadlinePassed": timeoutOutcome,
                    "linkUp": .to(.refreshing(a), []), "linkDown": droppedOutcome, "linkDownHeld": droppedOutcome,
                    "servicesResolved": .to(.refreshing(a), []),
                    "treeRefreshed": .to(.ready, [.endAttempt, .publish, .announce(.ready), .succeed([1])]),
                    "treeRefreshedWithTasks": .to(.runningTasks(a), [.runTasks, .publish]),
                    "refreshFailed": .to(
                        .disconnected,
                        [.endAttempt, .takeLinkDown, .announce(.failed(unreadable)), .fail([1], unreadable), .publish]),
                    "tasksFinished": .refused, "tasksFailed": .refused,
                ]) { _, new in new }))
        rows.append(
            Row(
                name: "runningTasks", state: .runningTasks(a), underPolicy: false,
                outcomes: userAttempt(.runningTasks(a), adding: .runningTasks(a12)).merging([
                    "connectAnswered": .to(.runningTasks(a), []), "connectFailedTransiently": .refused,
                    "connectFailed": .refused, "retryTimerFired": .refused, "deadlinePassed": timeoutOutcome,
                    "linkUp": .to(.runningTasks(a), []), "linkDown": droppedOutcome, "linkDownHeld": droppedOutcome,
                    "servicesResolved": .to(.runningTasks(a), []), "treeRefreshed": .refused,
                    "treeRefreshedWithTasks": .refused, "refreshFailed": .refused,
                    "tasksFinished": .to(.ready, [.endAttempt, .publish, .announce(.ready), .succeed([1])]),
                    "tasksFailed": .to(
                        .disconnected,
                        [.endAttempt, .takeLinkDown, .announce(.failed(taskError)), .fail([1], taskError), .publish]),
                ]) { _, new in new }))
        let readyCommon: [String: Outcome] = [
            "connect": .to(.ready, [.succeed([2])]), "connectResolved": .to(.ready, [.succeed([2])]),
            "subscriberLeft": .to(.ready, []), "connectAnswered": .to(.ready, []),
            "connectFailedTransiently": .refused, "connectFailed": .refused, "retryTimerFired": .refused,
            "deadlinePassed": .refused, "linkUp": .to(.ready, []), "servicesResolved": .to(.ready, []),
            "treeRefreshed": .refused, "treeRefreshedWithTasks": .refused, "refreshFailed": .refused,
            "tasksFinished": .refused, "tasksFailed": .refused,
            "disconnectRequested": .to(
                .disconnecting,
                [.endListeners(Machine.linkEnded(.local)), .announce(.disconnected(.local)), .publish]),
            "disconnectAnswered": .to(.ready, []), "disconnectFailed": .to(.ready, []),
            "reconnectTimerFired": .refused, "reconnectTimerFiredAbsent": .refused,
            "reconnectTimerFiredResolved": .refused, "reconnectAllowed": .to(.ready, []),
            "bluetoothLostFinally": .to(
                .disconnected, [.endListeners(boom), .announce(.disconnected(lost)), .publish]),
        ]
        let linkEnded: Outcome = .to(
            .idle,
            [.endListeners(Machine.linkEnded(.unknown)), .announce(.disconnected(.unknown)), .publish])
        rows.append(
            Row(
                name: "ready", state: .ready, underPolicy: false,
                outcomes: readyCommon.merging([
                    "linkDown": linkEnded, "linkDownHeld": linkEnded, "deviceRemoved": linkEnded,
                    "bluetoothLost": .to(
                        .disconnected, [.endListeners(boom), .announce(.disconnected(lost)), .publish]),
                ]) { _, new in new }))
        let reconnecting: Outcome = .to(
            .waitingToReconnect(failures: 0),
            [.suspendListeners, .announce(.disconnected(.unknown)), .armReconnect(.milliseconds(10)), .publish])
        rows.append(
            Row(
                name: "ready under a policy", state: .ready, underPolicy: true,
                outcomes: readyCommon.merging([
                    "linkDown": reconnecting,
                    "linkDownHeld": .to(
                        .reconnectionHeld, [.suspendListeners, .announce(.disconnected(.unknown)), .publish]),
                    "deviceRemoved": reconnecting,
                    "bluetoothLost": .to(
                        .reconnectionHeld, [.suspendListeners, .announce(.disconnected(lost)), .publish]),
                ]) { _, new in new }))
        rows.append(
            Row(
                name: "disconnecting", state: .disconnecting, underPolicy: false,
                outcomes: [
                    "connect": newAttempt, "connectResolved": newResolvedAttempt,
                    "subscriberLeft": .to(.disconnecting, []), "connectAnswered": .refused,
                    "connectFailedTransiently": .refused, "connectFailed": .refused, "retryTimerFired": .refused,
                    "deadlinePassed": .refused, "linkUp": .to(.disconnecting, []),
                    "linkDown": .to(.disconnecting, []), "linkDownHeld": .to(.disconnecting, []),
                    "servicesResolved": .to(.disconnecting, []), "treeRefreshed": .refused,
                    "treeRefreshedWithTasks": .refused, "refreshFailed": .refused, "tasksFinished": .refused,
                    "tasksFailed": .refused, "deviceRemoved": .to(.disconnecting, []),
                    "disconnectRequested": .to(.disconnecting, []),
                    "disconnectAnswered": .to(.disconnected, [.publish]),
                    "disconnectFailed": .to(.idle, [.publish]), "reconnectTimerFired": .refused,
                    "reconnectTimerFiredAbsent": .refused, "reconnectTimerFiredResolved": .refused,
                    "bluetoothLost": .to(.disconnected, [.publish]),
                    "bluetoothLostFinally": .to(.disconnected, [.publish]),
                    "reconnectAllowed": .to(.disconnecting, []),
                ]))
        rows.append(
            Row(
                name: "disconnected", state: .disconnected, underPolicy: false,
                outcomes: [
                    "connect": newAttempt, "connectResolved": newResolvedAttempt,
                    "subscriberLeft": .to(.disconnected, []), "connectAnswered": .refused,
                    "connectFailedTransiently": .refused, "connectFailed": .refused, "retryTimerFired": .refused,
                    "deadlinePassed": .refused, "linkUp": .to(.idle, [.publish]),
                    "linkDown": .to(.disconnected, []), "linkDownHeld": .to(.disconnected, []),
                    "servicesResolved": .to(.disconnected, []), "treeRefreshed": .refused,
                    "treeRefreshedWithTasks": .refused, "refreshFailed": .refused, "tasksFinished": .refused,
                    "tasksFailed": .refused, "deviceRemoved": .to(.disconnected, []),
                    "disconnectRequested": .to(.disconnecting, [.publish]),
                    "disconnectAnswered": .to(.disconnected, []), "disconnectFailed": .to(.disconnected, []),
                    "reconnectTimerFired": .refused, "reconnectTimerFiredAbsent": .refused,
                    "reconnectTimerFiredResolved": .refused, "bluetoothLost": .to(.disconnected, []),
                    "bluetoothLostFinally": .to(.disconnected, []), "reconnectAllowed": .to(.disconnected, []),
                ]))
        let waiting = State.waitingToReconnect(failures: 1)
        let again = attempt([], reconnection: 1, timeout: .seconds(30))
        rows.append(
            Row(
                name: "waitingToReconnect", state: waiting, underPolicy: true,
                outcomes: [
                    "connect": .to(
                        .connecting(attempt([2], reconnection: 1)),
                        [
                            .cancelReconnect, .beginAttempt(timeout: timeout), .announce(.connecting), .callConnect,
                            .publish,
                        ]
                    ),
                    "connectResolved": .to(
                        .refreshing(attempt([2], reconnection: 1, calls: 0)),
                        [
                            .cancelReconnect, .beginAttempt(timeout: timeout), .announce(.connecting),
                            .announce(.connected), .refreshTree, .publish,
                        ]),
                    "subscriberLeft": .to(waiting, []), "connectAnswered": .refused,
                    "connectFailedTransiently": .refused, "connectFailed": .refused, "retryTimerFired": .refused,
                    "deadlinePassed": .refused, "linkUp": .to(waiting, []), "linkDown": .to(waiting, []),
                    "linkDownHeld": .to(waiting, []), "servicesResolved": .to(waiting, []), "treeRefreshed": .refused,
                    "treeRefreshedWithTasks": .refused, "refreshFailed": .refused, "tasksFinished": .refused,
                    "tasksFailed": .refused, "deviceRemoved": .to(waiting, []),
                    "disconnectRequested": .to(
                        .disconnecting, [.cancelReconnect, .endListeners(Machine.linkEnded(.local)), .publish]),
                    "disconnectAnswered": .to(waiting, []), "disconnectFailed": .to(waiting, []),
                    "reconnectTimerFired": .to(
                        .connecting(again),
                        [.beginAttempt(timeout: .seconds(30)), .announce(.connecting), .callConnect, .publish]),
                    "reconnectTimerFiredAbsent": .to(
                        .waitingToReconnect(failures: 2), [.armReconnect(.milliseconds(20)), .publish]),
                    "reconnectTimerFiredResolved": .to(
                        .refreshing(attempt([], reconnection: 1, calls: 0, timeout: .seconds(30))),
                        [
                            .beginAttempt(timeout: .seconds(30)), .announce(.connecting), .announce(.connected),
                            .refreshTree, .publish,
                        ]),
                    "bluetoothLost": .to(.reconnectionHeld, [.cancelReconnect]),
                    "bluetoothLostFinally": .to(.disconnected, [.cancelReconnect, .endListeners(boom), .publish]),
                    "reconnectAllowed": .to(waiting, []),
                ]))
        rows.append(
            Row(
                name: "reconnectionHeld", state: .reconnectionHeld, underPolicy: true,
                outcomes: [
                    "connect": .to(
                        .connecting(attempt([2], reconnection: 0)),
                        [.beginAttempt(timeout: timeout), .announce(.connecting), .callConnect, .publish]),
                    "connectResolved": .to(
                        .refreshing(attempt([2], reconnection: 0, calls: 0)),
                        [
                            .beginAttempt(timeout: timeout), .announce(.connecting), .announce(.connected),
                            .refreshTree, .publish,
                        ]),
                    "subscriberLeft": .to(.reconnectionHeld, []), "connectAnswered": .refused,
                    "connectFailedTransiently": .refused, "connectFailed": .refused, "retryTimerFired": .refused,
                    "deadlinePassed": .refused, "linkUp": .to(.reconnectionHeld, []),
                    "linkDown": .to(.reconnectionHeld, []), "linkDownHeld": .to(.reconnectionHeld, []),
                    "servicesResolved": .to(.reconnectionHeld, []), "treeRefreshed": .refused,
                    "treeRefreshedWithTasks": .refused, "refreshFailed": .refused, "tasksFinished": .refused,
                    "tasksFailed": .refused, "deviceRemoved": .to(.reconnectionHeld, []),
                    "disconnectRequested": .to(.disconnecting, [.endListeners(Machine.linkEnded(.local)), .publish]),
                    "disconnectAnswered": .to(.reconnectionHeld, []), "disconnectFailed": .to(.reconnectionHeld, []),
                    "reconnectTimerFired": .refused, "reconnectTimerFiredAbsent": .refused,
                    "reconnectTimerFiredResolved": .refused, "bluetoothLost": .to(.reconnectionHeld, []),
                    "bluetoothLostFinally": .to(.disconnected, [.endListeners(boom), .publish]),
                    "reconnectAllowed": .to(.waitingToReconnect(failures: 0), [.armReconnect(.milliseconds(10))]),
                ]))
        // A reconnection's attempt (no subscriber, one failure before): its failures go to the policy.
        let retryLater: [Action] = [.armReconnect(.milliseconds(20)), .publish]
        rows.append(
            Row(
                name: "connecting again", state: .connecting(again), underPolicy: true,
                outcomes: [
                    "connect": .to(.connecting(attempt([2], reconnection: 1, timeout: .seconds(30))), []),
                    "connectResolved": .to(.connecting(attempt([2], reconnection: 1, timeout: .seconds(30))), []),
                    "subscriberLeft": .to(.connecting(again), []),
                    "connectAnswered": .to(.linkUp(again), [.announce(.connected), .publish]),
                    "connectFailedTransiently": .to(
                        .waitingToReconnect(failures: 2), [.endAttempt, .announce(.failed(transient))] + retryLater),
                    "connectFailed": .to(
                        .waitingToReconnect(failures: 2), [.endAttempt, .announce(.failed(permanent))] + retryLater),
                    "retryTimerFired": .refused,
                    "deadlinePassed": .to(
                        .waitingToReconnect(failures: 2),
                        [.endAttempt, .takeLinkDown, .announce(.failed(timedOutAgain))] + retryLater),
                    "linkUp": .to(.linkUp(again), [.announce(.connected), .publish]),
                    "linkDown": .to(.connecting(again), []), "linkDownHeld": .to(.connecting(again), []),
                    "servicesResolved": .to(.refreshing(again), [.announce(.connected), .refreshTree, .publish]),
                    "treeRefreshed": .refused, "treeRefreshedWithTasks": .refused, "refreshFailed": .refused,
                    "tasksFinished": .refused, "tasksFailed": .refused,
                    "deviceRemoved": .to(
                        .waitingToReconnect(failures: 2), [.endAttempt, .announce(.failed(removed))] + retryLater),
                    "disconnectRequested": .to(
                        .disconnecting,
                        [
                            .endAttempt, .announce(.failed(cancelledByDisconnect)),
                            .endListeners(Machine.linkEnded(.local)), .publish,
                        ]),
                    "disconnectAnswered": .to(.connecting(again), []), "disconnectFailed": .to(.connecting(again), []),
                    "reconnectTimerFired": .refused, "reconnectTimerFiredAbsent": .refused,
                    "reconnectTimerFiredResolved": .refused,
                    "bluetoothLost": .to(.reconnectionHeld, [.endAttempt, .announce(.failed(boom)), .publish]),
                    "bluetoothLostFinally": .to(
                        .disconnected, [.endAttempt, .announce(.failed(boom)), .endListeners(boom), .publish]),
                    "reconnectAllowed": .to(.connecting(again), []),
                ]))
        // The last attempt the policy allows (two failures before, at most three): success re-arms the
        // listeners; a failure gives up and ends them.
        let last = attempt([], reconnection: 2, timeout: .seconds(30))
        func givingUp(_ error: BluetoothError, takingLinkDown: Bool = false) -> Outcome {
            .to(
                .idle,
                [.endAttempt] + (takingLinkDown ? [.takeLinkDown] : []) + [
                    .announce(.failed(error)), .endListeners(gaveUp(error)), .publish,
                ])
        }
        rows.append(
            Row(
                name: "refreshing, last attempt", state: .refreshing(last), underPolicy: true,
                outcomes: [
                    "connect": .to(.refreshing(attempt([2], reconnection: 2, timeout: .seconds(30))), []),
                    "connectResolved": .to(.refreshing(attempt([2], reconnection: 2, timeout: .seconds(30))), []),
                    "subscriberLeft": .to(.refreshing(last), []), "connectAnswered": .to(.refreshing(last), []),
                    "connectFailedTransiently": .refused, "connectFailed": .refused, "retryTimerFired": .refused,
                    "deadlinePassed": givingUp(timedOutAgain, takingLinkDown: true),
                    "linkUp": .to(.refreshing(last), []), "linkDown": givingUp(dropped),
                    "linkDownHeld": givingUp(dropped), "servicesResolved": .to(.refreshing(last), []),
                    "treeRefreshed": .to(
                        .ready, [.endAttempt, .publish, .announce(.ready), .announce(.autoConnected), .rearmListeners]),
                    "treeRefreshedWithTasks": .to(.runningTasks(last), [.runTasks, .publish]),
                    "refreshFailed": givingUp(unreadable, takingLinkDown: true), "tasksFinished": .refused,
                    "tasksFailed": .refused, "deviceRemoved": givingUp(removed),
                    "disconnectRequested": .to(
                        .disconnecting,
                        [
                            .endAttempt, .announce(.failed(cancelledByDisconnect)),
                            .endListeners(Machine.linkEnded(.local)), .publish,
                        ]),
                    "disconnectAnswered": .to(.refreshing(last), []), "disconnectFailed": .to(.refreshing(last), []),
                    "reconnectTimerFired": .refused, "reconnectTimerFiredAbsent": .refused,
                    "reconnectTimerFiredResolved": .refused,
                    "bluetoothLost": .to(.reconnectionHeld, [.endAttempt, .announce(.failed(boom)), .publish]),
                    "bluetoothLostFinally": .to(
                        .disconnected, [.endAttempt, .announce(.failed(boom)), .endListeners(boom), .publish]),
                    "reconnectAllowed": .to(.refreshing(last), []),
                ]))
        return rows
    }()

    @Test func everyEventInEveryState() {
        let rows = Self.rows.map { row in
            TransitionTable<Machine, State>.Row(
                name: row.name,
                machine: Machine(address: Self.address, state: row.state, policy: row.underPolicy ? Self.policy : nil),
                outcomes: row.outcomes)
        }
        var table = TransitionTable(machineName: "connection", events: Self.events, rows: rows, expected: \.state)
        table.checkRefusal = { violation, row, event in
            #expect(violation.state == Machine.name(of: row.machine.state), "\(row.name)")
            #expect(violation.event == Machine.name(of: event), "\(row.name)")
        }
        table.expectEveryEventInEveryState()
    }

    @Test func theTableCoversEveryState() {
        let covered = Set(Self.rows.map { Machine.name(of: $0.state) })
        #expect(
            covered == [
                "idle", "connecting", "waitingToRetry", "linkUp", "refreshing", "runningTasks", "ready",
                "disconnecting", "disconnected", "waitingToReconnect", "reconnectionHeld",
            ])
    }

    /// A peripheral comes under the policy its `connect` asked for once ready; `disconnect` and giving up
    /// end it.
    @Test func thePolicyLifecycle() throws {
        var machine = Machine(address: Self.address)
        _ = try machine.handle(
            .connectRequested(subscriber: 1, timeout: Self.timeout, alreadyResolved: true, policy: Self.policy))
        #expect(machine.policy == nil)
        _ = try machine.handle(.treeRefreshed(hasTasks: false))
        #expect(machine.state == .ready)
        #expect(machine.policy != nil)
        _ = try machine.handle(.disconnectRequested)
        #expect(machine.policy == nil)

        var failing = Machine(address: Self.address, state: .ready, policy: Self.policy)
        _ = try failing.handle(.linkDown(.unknown, canReconnectNow: true))
        for failures in 0..<3 {
            #expect(failing.state == .waitingToReconnect(failures: failures))
            _ = try failing.handle(.reconnectTimerFired(timeout: .seconds(30), device: .absent))
        }
        #expect(failing.state == .idle)
        #expect(failing.policy == nil)
    }

    /// Transient failures are retried with growing waits until the deadline; each retry is one more call.
    @Test func transientFailuresAreRetriedUntilTheDeadline() throws {
        var machine = Machine(address: Self.address)
        _ = try machine.handle(
            .connectRequested(subscriber: 1, timeout: Self.timeout, alreadyResolved: false, policy: nil))
        var waits: [Duration] = []
        for _ in 0..<6 {
            let actions = try machine.handle(.connectFailed(Self.transient))
            guard case .armRetry(let wait)? = actions.first else {
                Issue.record("no retry after \(actions)")
                return
            }
            waits.append(wait)
            #expect(try machine.handle(.retryTimerFired) == [.callConnect])
        }
        #expect(
            waits == [
                .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1),
                .seconds(1),
            ])
        let ending = try machine.handle(.deadlinePassed)
        guard
            case .fail(let subscribers, let error)? = ending.first(where: { if case .fail = $0 { true } else { false } }
            )
        else {
            Issue.record("the subscriber did not fail: \(ending)")
            return
        }
        #expect(subscribers == [1])
        #expect(error.kind == .timeout)
        #expect(error.bluezMessage == "le-connection-abort-by-local")
        #expect(error.message.contains("7 calls of Connect()"))
    }

    @Test func theTransientFailures() {
        func failed(_ name: String, _ message: String) -> BluetoothError {
            BluetoothError(.connectionFailed, "connecting failed", bluezName: name, bluezMessage: message)
        }
        #expect(ConnectRetryPolicy.isTransient(failed("org.bluez.Error.Failed", "le-connection-abort-by-local")))
        #expect(ConnectRetryPolicy.isTransient(failed("org.bluez.Error.Failed", "Input/output error")))
        #expect(ConnectRetryPolicy.isTransient(failed("org.bluez.Error.InProgress", "In Progress")))
        #expect(!ConnectRetryPolicy.isTransient(failed("org.bluez.Error.Failed", "le-connection-abort-by-remote")))
        #expect(!ConnectRetryPolicy.isTransient(failed("org.bluez.Error.NotReady", "Resource Not Ready")))
        #expect(!ConnectRetryPolicy.isTransient(BluetoothError(.timeout, "no answer")))
    }
}
