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

    /// The socket to watch for incoming messages.
    var descriptor: Int32? {
        var descriptor: Int32 = -1
        return dbus_connection_get_unix_fd(connection, &descriptor) != 0 ? descriptor : nil
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

    /// Asks the bus to route matching signals here (for servers that broadcast instead of addressing the sender).
    func addMatch(_ rule: String) {
        dbus_bus_add_match(connection, rule, nil)
    }

    /// Reads what arrived without blocking and returns every queued incoming message.
    func incomingMessages() -> [DBusReply] {
        _ = dbus_connection_read_write(connection, 0)
        var messages: [DBusReply] = []
        while let message = dbus_connection_pop_message(connection) {
            messages.append(DBusReply(message: message))
        }
        return messages
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
    case uint32(UInt32)
    case strings([String])

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
