/*
 * The memory floor of richpushd's C libraries: links libcurl, libdbus and libpng as richpushd does, makes one
 * authenticated GET to the gateway, connects to the session bus, then idles. Its resident memory is what those
 * libraries cost a process before any Swift code runs. Usage: library-floor URL USER:PASSWORD SECONDS
 */
#include <curl/curl.h>
#include <dbus/dbus.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static size_t discard(char *data, size_t size, size_t count, void *context) {
    (void)data;
    (void)context;
    return size * count;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s URL USER:PASSWORD SECONDS\n", argv[0]);
        return 64;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURL *easy = curl_easy_init();
    curl_easy_setopt(easy, CURLOPT_URL, argv[1]);
    curl_easy_setopt(easy, CURLOPT_USERPWD, argv[2]);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
    CURLcode code = curl_easy_perform(easy);
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *bus = dbus_bus_get_private(DBUS_BUS_SESSION, &error);
    printf("curl %d, bus %s, libpng %u\n", (int)code, bus != NULL ? "connected" : "absent",
           (unsigned)png_access_version_number());
    fflush(stdout);
    sleep((unsigned)atoi(argv[3]));
    return 0;
}
