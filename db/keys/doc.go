// Package keys finds, loads and creates the archive's signing key: the
// Ed25519 key that signs receipt and rows files (engine/sign) and the
// archive's checkpoints. It lives outside the archive, so that whoever
// can write an archive file cannot re-sign what it says.
//
// # Basics
//
// The key is the file named by --key FILE, else by $CHRONICLE_KEY, else
// the default key file (DefaultPath: $XDG_CONFIG_HOME/chronicle/signing_key,
// else the user's config directory plus chronicle/signing_key). Load reads
// it; ForWriting reads it, or creates the default key file (mode 0600 in a
// 0700 directory) the first time a write needs it, with a one-line notice.
// The file is an unencrypted OpenSSH private key, the format `ssh-keygen
// -t ed25519 -N ""` writes, and Chronicle writes its own key in that
// format, so ssh-keygen works on either.
//
// # Caveats
//
// A key file that its group or others may read is refused (on Unix;
// Windows has no mode bits: there its directory's ACL decides), as ssh
// refuses one: a key others could read signs nothing for you. An
// encrypted key, or a key of another type, is refused with what to do.
// Reading the archive never needs the key.
package keys
