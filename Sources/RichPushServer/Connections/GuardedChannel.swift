import HummingbirdCore
import Logging
import NIOCore

/// A server child channel with the gateway's connection guards in front of `Base`'s handlers: the admission of
/// unauthenticated connections (``ConnectionAdmission``) and the byte arrivals that time a request header
/// (``ByteArrivals``), which must see the bytes before the HTTP decoder does. `Base` must put a
/// ``RequestDeadlines`` into the pipeline.
struct GuardedChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let connections: UnauthenticatedConnections

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { [connections] value in
            let pipeline = channel.pipeline.syncOperations
            let deadlines = try pipeline.handler(type: RequestDeadlines.self)
            try pipeline.addHandler(ByteArrivals(deadlines: deadlines), position: .first)
            try pipeline.addHandler(ConnectionAdmission(connections: connections), position: .first)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
