//! Player and master passwords: argon2id hashes in PHC string form, and fresh passwords
//! for the game master to mail out. Passwords are never stored or echoed in clear.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use rand::rngs::OsRng;
use rand::Rng;

/// A password that cannot be hashed (the hasher refused its parameters).
#[derive(Debug, thiserror::Error)]
#[error("cannot hash the password: {0}")]
pub struct PasswordError(String);

/// Hash a password with argon2id and the crate's default (OWASP-level) cost.
pub fn hash_password(password: &str) -> Result<String, PasswordError> {
    hash_with(password, Argon2::default())
}

/// Hash with an explicit cost: memory in KiB and iterations. Tests and small machines use
/// a low cost; [`verify_password`] reads the cost back from the hash.
pub fn hash_password_with_cost(password: &str, memory_kib: u32, iterations: u32) -> Result<String, PasswordError> {
    let params = Params::new(memory_kib, iterations, 1, None).map_err(|e| PasswordError(e.to_string()))?;
    hash_with(password, Argon2::new(Algorithm::Argon2id, Version::V0x13, params))
}

fn hash_with(password: &str, argon: Argon2<'_>) -> Result<String, PasswordError> {
    let salt = SaltString::generate(&mut OsRng);
    argon.hash_password(password.as_bytes(), &salt).map(|h| h.to_string()).map_err(|e| PasswordError(e.to_string()))
}

/// The most memory (KiB) a stored hash may ask a check to use: 64 MiB, three times the
/// default cost. A hand-edited hash could otherwise ask for gigabytes.
pub const MAX_MEMORY_KIB: u32 = 64 * 1024;
/// The most passes a stored hash may ask for.
pub const MAX_ITERATIONS: u32 = 16;
/// The most lanes a stored hash may ask for.
pub const MAX_LANES: u32 = 4;

/// Why a stored hash cannot be checked: not a hash, or a cost above the caps.
pub fn check_stored_hash(stored_hash: &str) -> Result<(), String> {
    let parsed = PasswordHash::new(stored_hash).map_err(|e| format!("not a password hash ({e})"))?;
    // The caps first, from the text itself: the hasher's own checks come after.
    for (key, what, max) in
        [("m", "KiB of memory", MAX_MEMORY_KIB), ("t", "passes", MAX_ITERATIONS), ("p", "lanes", MAX_LANES)]
    {
        let value = parsed.params.get_decimal(key).ok_or_else(|| format!("the hash gives no `{key}`"))?;
        if value > max {
            return Err(format!("the hash asks for {value} {what}, more than the {max} allowed"));
        }
    }
    Params::try_from(&parsed).map(|_| ()).map_err(|e| format!("unusable hash parameters ({e})"))
}

/// Whether `password` matches a stored hash. A malformed hash, or one whose cost is above
/// the caps ([`check_stored_hash`]), matches nothing and is never run.
pub fn verify_password(password: &str, stored_hash: &str) -> bool {
    if check_stored_hash(stored_hash).is_err() {
        return false;
    }
    match PasswordHash::new(stored_hash) {
        Ok(parsed) => Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok(),
        Err(_) => false,
    }
}

/// A fresh password of `len` characters from an alphabet without look-alikes (no 0/O,
/// 1/l/I), easy to copy from a mail.
pub fn generate_password(len: usize) -> String {
    const ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let mut rng = OsRng;
    (0..len).map(|_| ALPHABET[rng.gen_range(0..ALPHABET.len())] as char).collect()
}

/// Whether a new password is acceptable: 6 to 64 printable characters, no spaces (it is
/// typed on a SIGNON line).
pub fn check_new_password(password: &str) -> Result<(), &'static str> {
    let n = password.chars().count();
    if n < 6 {
        return Err("a password needs at least 6 characters");
    }
    if n > 64 {
        return Err("a password has at most 64 characters");
    }
    if password.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("a password cannot contain spaces or control characters");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_verifies_its_password_only() {
        let h = hash_password_with_cost("sesame42", 64, 1).unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(verify_password("sesame42", &h));
        assert!(!verify_password("sesame43", &h));
        assert!(!verify_password("sesame42", "not a hash"));
    }

    #[test]
    fn a_hash_asking_too_much_is_refused_without_running() {
        let h = hash_password_with_cost("sesame42", 64, 1).unwrap();
        assert!(check_stored_hash(&h).is_ok());
        assert!(check_stored_hash(&hash_password("sesame42").unwrap()).is_ok());
        // The same hash, hand-edited to ask for 256 GiB, 2^32-1 passes, or 255 lanes.
        for (from, to, word) in
            [("m=64", "m=268435456", "memory"), ("t=1", "t=4294967295", "passes"), ("p=1", "p=255", "lanes")]
        {
            let edited = h.replacen(from, to, 1);
            assert_ne!(edited, h);
            let started = std::time::Instant::now();
            assert!(!verify_password("sesame42", &edited), "{edited}");
            assert!(started.elapsed() < std::time::Duration::from_secs(1));
            let why = check_stored_hash(&edited).unwrap_err();
            assert!(why.contains(word), "{why}");
        }
        assert!(check_stored_hash("plain text").unwrap_err().contains("not a password hash"));
        assert!(check_stored_hash("$argon2id$v=19$t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2g").is_err());
    }

    #[test]
    fn generated_passwords_are_acceptable() {
        let p = generate_password(10);
        assert_eq!(p.len(), 10);
        assert!(check_new_password(&p).is_ok());
    }
}
