// libcurl loads librtmp, and librtmp GnuTLS, whose constructor initializes all of GnuTLS as the process starts (its
// crypto back end, PKCS#11 modules through p11-kit, the ASN.1 trees): about 0.8 MB resident for as long as the daemon
// runs, for a library it never calls, since it speaks only HTTP and HTTPS (`CURLOPT_PROTOCOLS_STR`) through
// libcurl's OpenSSL. Before initializing, the constructor asks the exported weak symbol `_gnutls_global_init_skip`;
// the executable's definition takes its place, as the dynamic linker lets an executable's symbols do. GnuTLS' own
// switch, `GNUTLS_NO_IMPLICIT_INIT=1`, only works from the environment the process starts with, which a daemon that
// users start themselves does not control.

/// Whether GnuTLS should skip initializing itself as it loads: always, here.
@_cdecl("_gnutls_global_init_skip")
public func gnutlsGlobalInitSkip() -> Int32 { 1 }
