/// This build of richpush as its commands' `--version` print it and its Debian package is named.
public enum Release {
    public static let version = "0.3.0"
}
