//! Arithmetic in GF(2^8) = GF(2)[x] / (x^8 + x^4 + x^3 + x^2 + 1).
//!
//! The reduction polynomial 0x11D is the one of Rabin's dispersal as
//! commonly implemented (zfec, the Reed–Solomon erasure coders derived from
//! Backblaze's), and x (= 2) generates the multiplicative group, so products
//! and inverses come from exponent and logarithm tables built at compile
//! time. It is not the AES field (0x11B): `mul(0x53, 0xCA)` is 0x8F here,
//! 0x01 there, and a test pins that.

/// The reduction polynomial, x^8 + x^4 + x^3 + x^2 + 1.
pub const POLY: u16 = 0x11D;

/// exp[i] = 2^i, doubled in length so that exp[log a + log b] needs no mod.
const EXP: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut x: u16 = 1;
    let mut i = 0;
    while i < 255 {
        t[i] = x as u8;
        t[i + 255] = x as u8;
        x <<= 1;
        if x & 0x100 != 0 {
            x ^= POLY;
        }
        i += 1;
    }
    t[510] = t[0];
    t[511] = t[1];
    t
};

/// log[a] for a != 0 (log[0] is unused).
const LOG: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 255 {
        t[EXP[i] as usize] = i as u8;
        i += 1;
    }
    t
};

/// Addition (and subtraction): XOR.
#[inline]
pub fn add(a: u8, b: u8) -> u8 {
    a ^ b
}

#[inline]
pub fn mul(a: u8, b: u8) -> u8 {
    if a == 0 || b == 0 {
        0
    } else {
        EXP[LOG[a as usize] as usize + LOG[b as usize] as usize]
    }
}

/// The multiplicative inverse; `inv(0)` is a caller's bug.
#[inline]
pub fn inv(a: u8) -> u8 {
    assert!(a != 0, "0 has no inverse in GF(2^8)");
    EXP[255 - LOG[a as usize] as usize]
}

#[inline]
pub fn div(a: u8, b: u8) -> u8 {
    mul(a, inv(b))
}

/// a^n (with 0^0 = 1, as a Vandermonde row needs).
pub fn pow(a: u8, n: u32) -> u8 {
    if n == 0 {
        1
    } else if a == 0 {
        0
    } else {
        EXP[(LOG[a as usize] as u32 * n % 255) as usize]
    }
}

/// log_2(a) for a != 0.
pub fn log(a: u8) -> u8 {
    assert!(a != 0, "log(0) is undefined");
    LOG[a as usize]
}

/// dst[k] ^= c * src[k]: the inner loop of encoding and decoding.
#[inline]
pub fn mul_add_slice(dst: &mut [u8], c: u8, src: &[u8]) {
    if c == 0 {
        return;
    }
    let lc = LOG[c as usize] as usize;
    for (d, &s) in dst.iter_mut().zip(src) {
        if s != 0 {
            *d ^= EXP[lc + LOG[s as usize] as usize];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Multiplication by shift and reduce, with no tables: an independent
    /// definition the tables must agree with.
    fn mul_bitwise(mut a: u8, mut b: u8) -> u8 {
        let mut p = 0u8;
        while b != 0 {
            if b & 1 != 0 {
                p ^= a;
            }
            let carry = a & 0x80 != 0;
            a <<= 1;
            if carry {
                a ^= (POLY & 0xFF) as u8;
            }
            b >>= 1;
        }
        p
    }

    #[test]
    fn known_vectors_of_the_0x11d_field() {
        assert_eq!(mul(3, 4), 12);
        assert_eq!(mul(7, 7), 21);
        assert_eq!(mul(23, 45), 41);
        assert_eq!(log(3), 25);
        assert_eq!(inv(2), 0x8E);
        assert_eq!(pow(2, 8), 0x1D);
        assert_eq!(pow(2, 9), 0x3A);
        // 0x01 in the AES field (0x11B): guards against the wrong polynomial.
        assert_eq!(mul(0x53, 0xCA), 0x8F);
    }

    #[test]
    fn tables_agree_with_shift_and_reduce_for_every_pair() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                assert_eq!(mul(a, b), mul_bitwise(a, b), "{a} * {b}");
            }
        }
    }

    #[test]
    fn two_generates_the_multiplicative_group() {
        let mut seen = [false; 256];
        for &v in &EXP[..255] {
            assert!(!seen[v as usize], "2 has order < 255");
            seen[v as usize] = true;
        }
        assert!(!seen[0]);
    }

    #[test]
    fn every_nonzero_element_has_an_inverse() {
        for a in 1..=255u8 {
            assert_eq!(mul(a, inv(a)), 1);
            assert_eq!(div(a, a), 1);
        }
    }

    #[test]
    fn mul_add_slice_is_elementwise_mul_and_xor() {
        let src: Vec<u8> = (0..=255).collect();
        let mut dst = vec![0x5A; 256];
        mul_add_slice(&mut dst, 0x1F, &src);
        for (k, &d) in dst.iter().enumerate() {
            assert_eq!(d, 0x5A ^ mul(0x1F, k as u8));
        }
    }
}
