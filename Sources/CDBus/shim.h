#ifndef RICHPUSH_CDBUS_SHIM_H
#define RICHPUSH_CDBUS_SHIM_H

#include <dbus/dbus.h>

/*
 * libdbus defines its type codes as cast macros (`((int) 's')`), which Swift does not import; these constants stand
 * in for them. Messages are built with dbus_message_iter_append_basic, since dbus_message_append_args is variadic.
 */

static const int rp_dbus_type_invalid = DBUS_TYPE_INVALID;
static const int rp_dbus_type_byte = DBUS_TYPE_BYTE;
static const int rp_dbus_type_boolean = DBUS_TYPE_BOOLEAN;
static const int rp_dbus_type_int32 = DBUS_TYPE_INT32;
static const int rp_dbus_type_uint32 = DBUS_TYPE_UINT32;
static const int rp_dbus_type_string = DBUS_TYPE_STRING;
static const int rp_dbus_type_array = DBUS_TYPE_ARRAY;
static const int rp_dbus_type_variant = DBUS_TYPE_VARIANT;
static const int rp_dbus_type_struct = DBUS_TYPE_STRUCT;
static const int rp_dbus_type_dict_entry = DBUS_TYPE_DICT_ENTRY;
static const int rp_dbus_timeout_default = DBUS_TIMEOUT_USE_DEFAULT;
static const int rp_dbus_message_type_method_return = DBUS_MESSAGE_TYPE_METHOD_RETURN;
static const int rp_dbus_message_type_error = DBUS_MESSAGE_TYPE_ERROR;

/* The byte array of an `ay` in one call; libdbus takes the address of the pointer. */
static inline dbus_bool_t rp_dbus_append_bytes(DBusMessageIter *iter, const unsigned char *bytes, int count) {
    return dbus_message_iter_append_fixed_array(iter, DBUS_TYPE_BYTE, &bytes, count);
}

#endif
