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

/// Whether `password` matches a stored hash. A malformed hash matches nothing.
pub fn verify_password(password: &str, stored_hash: &str) -> bool {
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
    fn generated_passwords_are_acceptable() {
        let p = generate_password(10);
        assert_eq!(p.len(), 10);
        assert!(check_new_password(&p).is_ok());
    }
}
