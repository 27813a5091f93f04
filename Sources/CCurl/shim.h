#ifndef RICHPUSH_CCURL_SHIM_H
#define RICHPUSH_CCURL_SHIM_H

/* The type-checking macros of curl.h wrap curl_easy_setopt in GCC extensions; the typed wrappers below replace them. */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

/*
 * Swift cannot call C variadic functions such as curl_easy_setopt and curl_easy_getinfo, and does not import
 * macros built from casts (CURLAUTH_BASIC, CURL_GLOBAL_DEFAULT): typed wrappers and constants stand in for them.
 */

typedef size_t (*rp_curl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*rp_curl_progress_callback)(void *context, curl_off_t download_total, curl_off_t downloaded,
                                         curl_off_t upload_total, curl_off_t uploaded);

static const long rp_curl_global_default = CURL_GLOBAL_DEFAULT;
static const unsigned long rp_curl_auth_basic = CURLAUTH_BASIC;
static const unsigned long rp_curl_auth_bearer = CURLAUTH_BEARER;

static inline CURLcode rp_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode rp_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode rp_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode rp_curl_setopt_size(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode rp_curl_setopt_data_callback(CURL *handle, CURLoption option, rp_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode rp_curl_setopt_progress_callback(CURL *handle, rp_curl_progress_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

static inline CURLcode rp_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode rp_curl_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

/* CURLMsg keeps its result in a union. */
static inline CURLcode rp_curl_message_result(const CURLMsg *message) {
    return message->data.result;
}

#endif
