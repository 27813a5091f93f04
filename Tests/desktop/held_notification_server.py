"""A freedesktop notification server that answers Notify only when told to (Debian's python3-dbus and python3-gi).

The daemon's tests use it to show how richpushd waits for a slow desktop: every Notify call is logged on standard
output as it arrives ("notify <summary>: <body>"), and the answers are held until someone calls
org.richpush.Test.Release on the same object; then they go out in order, ids from 1. An alert whose body holds
"refuse" is answered at once with an error, as a server that turns one alert down.
"""
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

PATH = "/org/freedesktop/Notifications"


class HeldNotifications(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, PATH)
        self.held = []
        self.next_id = 1

    @dbus.service.method("org.freedesktop.Notifications", out_signature="as")
    def GetCapabilities(self):
        return ["body", "actions"]

    @dbus.service.method("org.freedesktop.Notifications", out_signature="ssss")
    def GetServerInformation(self):
        return ["held", "richpush tests", "1", "1.2"]

    @dbus.service.method("org.freedesktop.Notifications", in_signature="susssasa{sv}i", out_signature="u",
                         async_callbacks=("reply", "error"))
    def Notify(self, app_name, replaces_id, icon, summary, body, actions, hints, timeout, reply, error):
        print(f"notify {summary}: {body}", flush=True)
        if "refuse" in body:
            error(dbus.exceptions.DBusException("this alert is not taken", name="org.richpush.Test.Refused"))
            return
        self.held.append(reply)

    @dbus.service.method("org.freedesktop.Notifications", in_signature="u")
    def CloseNotification(self, notification_id):
        pass

    @dbus.service.method("org.richpush.Test")
    def Release(self):
        held, self.held = self.held, []
        for reply in held:
            reply(dbus.UInt32(self.next_id))
            self.next_id += 1


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    name = dbus.service.BusName("org.freedesktop.Notifications", bus)
    server = HeldNotifications(bus)
    print("ready", flush=True)
    GLib.MainLoop().run()
    del name, server


if __name__ == "__main__":
    sys.exit(main())
