/// Which thumbnail URLs are accepted.
public enum SigningPolicy: Sendable {
    /// Only URLs this signer signed.
    case signed(URLSigner)
    /// Any URL whose signature segment is `_`: for development only, since anyone
    /// can then make the server fetch any URL at any size.
    case unsigned
}
