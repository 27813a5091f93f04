import ServiceLifecycle

extension Doorbell {
    /// Runs a service's loop, `body`, that ends once this doorbell is closed, and closes it when the service is asked
    /// to stop: by a graceful shutdown, or by cancellation, as a group cancels its services when one fails (the server
    /// that could not bind its port). A cancelled wait returns at once, so a loop left open then would only spin.
    func runUntilStopped(_ body: () async -> Void) async {
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await body()
            } onGracefulShutdown: {
                self.close()
            }
        } onCancel: {
            self.close()
        }
    }
}
