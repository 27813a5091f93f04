import CDBus

/// A call on the bus that failed, with libdbus's error name and message.
struct DBusFailure: Error, Sendable, Equatable, CustomStringConvertible {
    var name: String
    var message: String

    var description: String { "\(message) (\(name))" }

    /// Takes the error out of a `DBusError` and frees it.
    init(_ error: inout DBusError) {
        name = error.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
        message = error.message.map { String(cString: $0) } ?? "unknown D-Bus error"
        dbus_error_free(&error)
    }

    init(name: String, message: String) {
        self.name = name
        self.message = message
    }
}

/// A private connection to the user's session bus, owned by the daemon's loop thread.
///
/// Private, because a shared connection could be closed under us by other code; and the default exit-on-disconnect
/// of libdbus is turned off: a bus that goes away makes the daemon fall back to the console, not die.
final class DBusSession {
    let connection: OpaquePointer
    /// Calls sent without waiting, by serial: their replies come in with the signals, and a slow server delays only
    /// its own answers. None times out here: a call is answered, or fails when its recipient leaves the bus (the bus
    /// answers for it) or the connection closes.
    private var awaiting: [UInt32: (Result<DBusReply, DBusFailure>) -> Void] = [:]

    /// Connects to `$DBUS_SESSION_BUS_ADDRESS`. Never autolaunches a bus: without an address there is no desktop.
    static func connect(environment: [String: String]) throws(DBusFailure) -> DBusSession {
        guard let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty else {
            throw DBusFailure(name: "org.freedesktop.DBus.Error.NoServer", message: "no session bus (DBUS_SESSION_BUS_ADDRESS is not set)")
        }
        var error = DBusError()
        dbus_error_init(&error)
        guard let connection = dbus_connection_open_private(address, &error) else { throw DBusFailure(&error) }
        dbus_connection_set_exit_on_disconnect(connection, 0)
        guard dbus_bus_register(connection, &error) != 0 else {
            let failure = DBusFailure(&error)
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw failure
        }
        return DBusSession(connection: connection)
    }

    private init(connection: OpaquePointer) {
        self.connection = connection
    }

    deinit {
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
    }

    var isConnected: Bool { dbus_connection_get_is_connected(connection) != 0 }

    /// The socket to watch for incoming messages; none once the connection closed, whose socket would wake the loop
    /// for ever.
    var descriptor: Int32? {
        var descriptor: Int32 = -1
        return isConnected && dbus_connection_get_unix_fd(connection, &descriptor) != 0 ? descriptor : nil
    }

    /// Calls sent whose answer has not come yet.
    var unanswered: Int { awaiting.count }

    /// Whether a connection on the bus owns `name`; asks the bus itself, which answers at once however busy the
    /// owner is. False when the bus cannot be asked.
    func nameHasOwner(_ name: String) -> Bool {
        let reply = try? call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", method: "NameHasOwner",
            timeoutMilliseconds: 1000
        ) { $0.append(name) }
        return reply?.arguments.first??.boolean ?? false
    }

    /// Sends a method call and waits for its reply.
    func call(
        destination: String, path: String, interface: String, method: String, timeoutMilliseconds: Int32 = 5000,
        arguments: (inout DBusWriter) -> Void = { _ in }
    ) throws(DBusFailure) -> DBusReply {
        guard let message = dbus_message_new_method_call(destination, path, interface, method) else {
            throw DBusFailure(name: "org.freedesktop.DBus.Error.NoMemory", message: "cannot create a message")
        }
        defer { dbus_message_unref(message) }
        var writer = DBusWriter(message: message)
        arguments(&writer)
        var error = DBusError()
        dbus_error_init(&error)
        guard let reply = dbus_connection_send_with_reply_and_block(connection, message, timeoutMilliseconds, &error) else {
            throw DBusFailure(&error)
        }
        return DBusReply(message: reply)
    }

    /// Sends a method call without waiting: `handler` gets its reply, or its failure, from a later
    /// ``incomingMessages()`` on this thread.
    func send(
        destination: String, path: String, interface: String, method: String, arguments: (inout DBusWriter) -> Void = { _ in },
        reply handler: @escaping (Result<DBusReply, DBusFailure>) -> Void
    ) {
        guard let message = dbus_message_new_method_call(destination, path, interface, method) else {
            return handler(.failure(DBusFailure(name: "org.freedesktop.DBus.Error.NoMemory", message: "cannot create a message")))
        }
        defer { dbus_message_unref(message) }
        var writer = DBusWriter(message: message)
        arguments(&writer)
        var serial: UInt32 = 0
        guard dbus_connection_send(connection, message, &serial) != 0 else {
            return handler(.failure(DBusFailure(name: "org.freedesktop.DBus.Error.NoMemory", message: "cannot queue the message")))
        }
        awaiting[serial] = handler
        dbus_connection_flush(connection)
    }

    /// Sends a method call whose reply nobody needs (closing an alert).
    func sendWithoutReply(destination: String, path: String, interface: String, method: String, arguments: (inout DBusWriter) -> Void) {
        guard let message = dbus_message_new_method_call(destination, path, interface, method) else { return }
        defer { dbus_message_unref(message) }
        dbus_message_set_no_reply(message, 1)
        var writer = DBusWriter(message: message)
        arguments(&writer)
        _ = dbus_connection_send(connection, message, nil)
        dbus_connection_flush(connection)
    }

    /// Asks the bus to route matching signals here (for servers that broadcast instead of addressing the sender).
    func addMatch(_ rule: String) {
        dbus_bus_add_match(connection, rule, nil)
    }

    /// Reads what arrived without blocking, answers the calls whose replies came (all of them, with a failure, once
    /// the connection closed) and returns every other incoming message: the signals.
    func incomingMessages() -> [DBusReply] {
        _ = dbus_connection_read_write(connection, 0)
        var messages: [DBusReply] = []
        var answered: [(handler: (Result<DBusReply, DBusFailure>) -> Void, result: Result<DBusReply, DBusFailure>)] = []
        while let message = dbus_connection_pop_message(connection) {
            let reply = DBusReply(message: message)
            let type = dbus_message_get_type(message)
            guard type == rp_dbus_message_type_method_return || type == rp_dbus_message_type_error,
                let waiting = awaiting.removeValue(forKey: dbus_message_get_reply_serial(message))
            else {
                messages.append(reply)
                continue
            }
            if type == rp_dbus_message_type_error {
                var error = DBusError()
                dbus_error_init(&error)
                _ = dbus_set_error_from_message(&error, message)
                answered.append((waiting, .failure(DBusFailure(&error))))
            } else {
                answered.append((waiting, .success(reply)))
            }
        }
        // Handlers may send again: they run once this method no longer walks the table.
        for (handler, result) in answered { handler(result) }
        if !isConnected { failUnanswered(with: Self.closed) }
        return messages
    }

    static let closed = DBusFailure(name: "org.freedesktop.DBus.Error.Disconnected", message: "the session bus connection closed")

    /// Answers every call still awaited with `failure`, in the order they were sent: for a connection given up.
    func failUnanswered(with failure: DBusFailure) {
        let unanswered = awaiting.sorted { $0.key < $1.key }
        awaiting.removeAll()
        for (_, handler) in unanswered { handler(.failure(failure)) }
    }
}

/// A received message (a method reply or a signal); reads its arguments in order.
final class DBusReply {
    let message: OpaquePointer

    init(message: OpaquePointer) {
        self.message = message
    }

    deinit { dbus_message_unref(message) }

    func isSignal(interface: String, member: String) -> Bool {
        dbus_message_is_signal(message, interface, member) != 0
    }

    /// The arguments, with strings, integers and string arrays decoded; other types as nil.
    var arguments: [DBusValue?] {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(message, &iterator) != 0 else { return [] }
        var values: [DBusValue?] = []
        repeat {
            values.append(Self.value(&iterator))
        } while dbus_message_iter_next(&iterator) != 0
        return values
    }

    private static func value(_ iterator: inout DBusMessageIter) -> DBusValue? {
        let type = dbus_message_iter_get_arg_type(&iterator)
        switch type {
        case rp_dbus_type_string:
            var pointer: UnsafePointer<CChar>?
            dbus_message_iter_get_basic(&iterator, &pointer)
            return .string(pointer.map { String(cString: $0) } ?? "")
        case rp_dbus_type_boolean:
            var flag: dbus_bool_t = 0
            dbus_message_iter_get_basic(&iterator, &flag)
            return .boolean(flag != 0)
        case rp_dbus_type_uint32:
            var number: UInt32 = 0
            dbus_message_iter_get_basic(&iterator, &number)
            return .uint32(number)
        case rp_dbus_type_array where dbus_message_iter_get_element_type(&iterator) == rp_dbus_type_string:
            var element = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &element)
            var strings: [String] = []
            while dbus_message_iter_get_arg_type(&element) == rp_dbus_type_string {
                var pointer: UnsafePointer<CChar>?
                dbus_message_iter_get_basic(&element, &pointer)
                strings.append(pointer.map { String(cString: $0) } ?? "")
                dbus_message_iter_next(&element)
            }
            return .strings(strings)
        default:
            return nil
        }
    }
}

/// The argument types the daemon reads.
enum DBusValue: Equatable {
    case string(String)
    case boolean(Bool)
    case uint32(UInt32)
    case strings([String])

    var boolean: Bool? {
        if case .boolean(let value) = self { return value }
        return nil
    }

    var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var uint32: UInt32? {
        if case .uint32(let value) = self { return value }
        return nil
    }

    var strings: [String]? {
        if case .strings(let value) = self { return value }
        return nil
    }
}

/// Appends arguments to a message being built; containers take a closure that fills them.
struct DBusWriter {
    private var iterator = DBusMessageIter()

    init(message: OpaquePointer) {
        dbus_message_iter_init_append(message, &iterator)
    }

    private init(iterator: DBusMessageIter) {
        self.iterator = iterator
    }

    mutating func append(_ value: String) {
        value.withCString { pointer in
            var argument: UnsafePointer<CChar>? = pointer
            _ = dbus_message_iter_append_basic(&iterator, rp_dbus_type_string, &argument)
        }
    }

    mutating func append(_ value: UInt32) {
        var argument = value
        _ = dbus_message_iter_append_basic(&iterator, rp_dbus_type_uint32, &argument)
    }

    mutating func append(_ value: UInt8) {
        var argument = value
        _ = dbus_message_iter_append_basic(&iterator, rp_dbus_type_byte, &argument)
    }

    mutating func append(_ value: Int32) {
        var argument = value
        _ = dbus_message_iter_append_basic(&iterator, rp_dbus_type_int32, &argument)
    }

    mutating func append(_ value: Bool) {
        var argument: dbus_bool_t = value ? 1 : 0
        _ = dbus_message_iter_append_basic(&iterator, rp_dbus_type_boolean, &argument)
    }

    mutating func append(_ bytes: [UInt8]) {
        container(rp_dbus_type_array, signature: "y") { array in
            bytes.withUnsafeBufferPointer { buffer in
                _ = rp_dbus_append_bytes(&array.iterator, buffer.baseAddress, Int32(buffer.count))
            }
        }
    }

    mutating func append(_ strings: [String]) {
        container(rp_dbus_type_array, signature: "s") { array in
            for string in strings { array.append(string) }
        }
    }

    /// An array, struct, dict entry or variant; `signature` is the element's (arrays) or the content's (variants).
    mutating func container(_ type: Int32, signature: String?, _ fill: (inout DBusWriter) -> Void) {
        var child = DBusWriter(iterator: DBusMessageIter())
        if let signature {
            _ = signature.withCString { dbus_message_iter_open_container(&iterator, type, $0, &child.iterator) }
        } else {
            _ = dbus_message_iter_open_container(&iterator, type, nil, &child.iterator)
        }
        fill(&child)
        _ = dbus_message_iter_close_container(&iterator, &child.iterator)
    }

    /// One `{sv}` entry of a hints dictionary.
    mutating func hint(_ key: String, signature: String, _ fill: (inout DBusWriter) -> Void) {
        container(rp_dbus_type_dict_entry, signature: nil) { entry in
            entry.append(key)
            entry.container(rp_dbus_type_variant, signature: signature, fill)
        }
    }
}
