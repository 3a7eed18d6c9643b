//! Winograd F(2x2, 3x3) convolutions on the 8x8 board (Lavin & Gray 2015,
//! arXiv 1509.09308; the method of Leela Zero's and lc0's CPU backends).
//!
//! The board splits into 4x4 tiles of 2x2 outputs, each reading a 4x4 input
//! patch (with the zero padding). In the transformed domain a 3x3
//! convolution is 16 independent matrix products `[tiles, C_in] x [C_in,
//! C_out]`, one per transformed point, with 16 multiplications per 2x2
//! outputs instead of 36: 2.25x fewer multiply-adds than a direct or im2col
//! convolution. Activations are NHWC (`[positions * 64, C]`); every
//! transform runs over the channel vector, which the compiler vectorises.
//!
//! - input: `V = Bᵀ d B`, with `Bᵀ = [[1,0,-1,0],[0,1,1,0],[0,-1,1,0],[0,1,0,-1]]`;
//! - filter (once, when the weights are loaded): `U = G g Gᵀ`, with
//!   `G = [[1,0,0],[½,½,½],[½,-½,½],[0,0,1]]`;
//! - output: `Y = Aᵀ M A`, with `Aᵀ = [[1,1,1,0],[0,1,-1,-1]]`, where
//!   `M = U ⊙ V` summed over input channels (the GEMMs).

// The transforms index several arrays in step; index loops read as the maths.
#![allow(clippy::needless_range_loop)]

/// Tiles per position (4 x 4 tiles of 2 x 2 cells).
pub const TILES: usize = 16;

/// A 3x3 convolution's weights in the Winograd domain: 16 matrices
/// `[c_in, c_out]`, row-major, one after the other, and the bias.
#[derive(Clone, Debug)]
pub struct WinogradConv {
    /// Input channels.
    pub c_in: usize,
    /// Output channels.
    pub c_out: usize,
    u: Vec<f32>,
    bias: Vec<f32>,
}

impl WinogradConv {
    /// From folded 3x3 weights `w[(tap * c_in + ci) * c_out + co]` (tap =
    /// ky * 3 + kx) and a bias.
    pub fn new(c_in: usize, c_out: usize, w: &[f32], bias: &[f32]) -> WinogradConv {
        assert_eq!(w.len(), 9 * c_in * c_out);
        let mut u = vec![0.0f32; 16 * c_in * c_out];
        for ci in 0..c_in {
            for co in 0..c_out {
                let g = |ky: usize, kx: usize| w[((ky * 3 + kx) * c_in + ci) * c_out + co];
                // Gg: 4 x 3.
                let mut gg = [[0.0f32; 3]; 4];
                for kx in 0..3 {
                    let (g0, g1, g2) = (g(0, kx), g(1, kx), g(2, kx));
                    gg[0][kx] = g0;
                    gg[1][kx] = 0.5 * (g0 + g1 + g2);
                    gg[2][kx] = 0.5 * (g0 - g1 + g2);
                    gg[3][kx] = g2;
                }
                // (Gg)Gᵀ: 4 x 4.
                for (a, row) in gg.iter().enumerate() {
                    let t = [
                        row[0],
                        0.5 * (row[0] + row[1] + row[2]),
                        0.5 * (row[0] - row[1] + row[2]),
                        row[2],
                    ];
                    for (b, v) in t.iter().enumerate() {
                        u[((a * 4 + b) * c_in + ci) * c_out + co] = *v;
                    }
                }
            }
        }
        WinogradConv {
            c_in,
            c_out,
            u,
            bias: bias.to_vec(),
        }
    }

    /// Scratch floats needed for `n` positions (transformed input and output).
    pub fn scratch_len(&self, n: usize) -> usize {
        16 * (stride(n * TILES, self.c_in) + stride(n * TILES, self.c_out)) + n * 100 * self.c_in
    }

    /// `out = relu(conv(x) + bias [+ residual])` for `n` positions; `x` is
    /// `[n * 64, c_in]`, `out` and `residual` `[n * 64, c_out]`.
    pub fn forward(
        &self,
        x: &[f32],
        n: usize,
        scratch: &mut [f32],
        out: &mut [f32],
        residual: Option<&[f32]>,
    ) {
        self.forward_with(x, n, scratch, out, residual, true)
    }

    /// [`WinogradConv::forward`], with the ReLU or without (`relu`): the
    /// training step needs the convolution alone, before batch norm.
    pub fn forward_with(
        &self,
        x: &[f32],
        n: usize,
        scratch: &mut [f32],
        out: &mut [f32],
        residual: Option<&[f32]>,
        relu: bool,
    ) {
        let (ci, co) = (self.c_in, self.c_out);
        let tiles = n * TILES;
        let (vs, ms) = (stride(tiles, ci), stride(tiles, co));
        let (v, rest) = scratch[..16 * (vs + ms) + n * 100 * ci].split_at_mut(16 * vs);
        let (m, pad) = rest.split_at_mut(16 * ms);
        input_transform(x, n, ci, pad, v);
        for xi in 0..16 {
            point_gemm(
                tiles,
                ci,
                co,
                &v[xi * vs..xi * vs + tiles * ci],
                &self.u[xi * ci * co..(xi + 1) * ci * co],
                &mut m[xi * ms..xi * ms + tiles * co],
            );
        }
        output_transform(m, n, co, &self.bias, out, residual, relu);
    }
}

/// `m = v · u` for one transformed point: `v` is `[tiles, ci]`, `u`
/// `[ci, co]` and `m` `[tiles, co]`, row-major. On the AVX2 path with
/// `co` a multiple of 8, a kernel written for these shapes (a short `ci`,
/// `u` held in L1, no packing); otherwise the `gemm` crate's. Both sum
/// each output over `ci` in order with fused multiply-adds from zero, so
/// they give the same bits.
fn point_gemm(tiles: usize, ci: usize, co: usize, v: &[f32], u: &[f32], m: &mut [f32]) {
    assert!(v.len() >= tiles * ci && u.len() >= ci * co && m.len() >= tiles * co);
    #[cfg(target_arch = "x86_64")]
    if crate::util::simd::isa() == crate::util::simd::Isa::Avx2 && co.is_multiple_of(8) {
        // SAFETY: the CPU runs AVX2 and FMA (the path chosen), and the
        // assert above bounds every index the kernel reaches.
        unsafe { point_gemm_avx2(tiles, ci, co, v.as_ptr(), u.as_ptr(), m.as_mut_ptr()) };
        return;
    }
    // SAFETY: the path chosen runs on this CPU (util::simd).
    unsafe { gemm_crate_product(crate::util::simd::isa(), tiles, ci, co, v, u, m) };
}

/// `m = v · u` (shapes as in [`point_gemm`]) by the `gemm` crate's
/// kernels for `isa`.
///
/// # Safety
///
/// The CPU runs `isa`.
unsafe fn gemm_crate_product(
    isa: crate::util::simd::Isa,
    tiles: usize,
    ci: usize,
    co: usize,
    v: &[f32],
    u: &[f32],
    m: &mut [f32],
) {
    assert!(v.len() >= tiles * ci && u.len() >= ci * co && m.len() >= tiles * co);
    // SAFETY: the slices hold tiles x ci, ci x co and tiles x co floats
    // (asserted above), and the CPU runs `isa` (the caller's promise).
    unsafe {
        crate::util::simd::sgemm(
            isa,
            tiles,
            co,
            ci,
            m.as_mut_ptr(),
            1,
            co as isize,
            false,
            v.as_ptr(),
            1,
            ci as isize,
            u.as_ptr(),
            1,
            co as isize,
            0.0,
            1.0,
            gemm::Parallelism::None,
        );
    }
}

/// [`point_gemm`] on AVX2: the output's columns in blocks of up to 32
/// (four registers), rows in pairs.
///
/// # Safety
/// The CPU runs AVX2 and FMA; `co` is a multiple of 8; `v`, `u` and `m`
/// hold `tiles * ci`, `ci * co` and `tiles * co` floats.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn point_gemm_avx2(tiles: usize, ci: usize, co: usize, v: *const f32, u: *const f32, m: *mut f32) {
    let mut j0 = 0;
    while j0 < co {
        let blocks = (co - j0).min(32) / 8;
        match blocks {
            4 => point_columns::<4>(tiles, ci, co, j0, v, u, m),
            3 => point_columns::<3>(tiles, ci, co, j0, v, u, m),
            2 => point_columns::<2>(tiles, ci, co, j0, v, u, m),
            _ => point_columns::<1>(tiles, ci, co, j0, v, u, m),
        }
        j0 += blocks * 8;
    }
}

/// Columns `j0 .. j0 + 8 * NB` of [`point_gemm_avx2`]'s product.
///
/// # Safety
/// As [`point_gemm_avx2`], with `j0 + 8 * NB <= co`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn point_columns<const NB: usize>(
    tiles: usize,
    ci: usize,
    co: usize,
    j0: usize,
    v: *const f32,
    u: *const f32,
    m: *mut f32,
) {
    use std::arch::x86_64::*;
    let mut r = 0;
    while r + 2 <= tiles {
        let (v0, v1) = (v.add(r * ci), v.add((r + 1) * ci));
        let mut a0 = [_mm256_setzero_ps(); NB];
        let mut a1 = [_mm256_setzero_ps(); NB];
        for k in 0..ci {
            let (b0, b1) = (_mm256_broadcast_ss(&*v0.add(k)), _mm256_broadcast_ss(&*v1.add(k)));
            let row = u.add(k * co + j0);
            for q in 0..NB {
                let w = _mm256_loadu_ps(row.add(8 * q));
                a0[q] = _mm256_fmadd_ps(b0, w, a0[q]);
                a1[q] = _mm256_fmadd_ps(b1, w, a1[q]);
            }
        }
        for q in 0..NB {
            _mm256_storeu_ps(m.add(r * co + j0 + 8 * q), a0[q]);
            _mm256_storeu_ps(m.add((r + 1) * co + j0 + 8 * q), a1[q]);
        }
        r += 2;
    }
    if r < tiles {
        let v0 = v.add(r * ci);
        let mut a0 = [_mm256_setzero_ps(); NB];
        for k in 0..ci {
            let b0 = _mm256_broadcast_ss(&*v0.add(k));
            let row = u.add(k * co + j0);
            for q in 0..NB {
                a0[q] = _mm256_fmadd_ps(b0, _mm256_loadu_ps(row.add(8 * q)), a0[q]);
            }
        }
        for q in 0..NB {
            _mm256_storeu_ps(m.add(r * co + j0 + 8 * q), a0[q]);
        }
    }
}

/// Floats between the 16 transformed matrices of `tiles x c`: padded by a
/// cache line so that the 16 streams a tile writes or reads do not alias in
/// the L1 cache (a stride that is a multiple of 4 KB would).
fn stride(tiles: usize, c: usize) -> usize {
    tiles * c + 16
}

/// Channels per block in the transforms: a block of each of the 16 patch
/// points stays in registers.
const W: usize = 8;

type Lane = [f32; W];

#[inline(always)]
fn add(a: Lane, b: Lane) -> Lane {
    std::array::from_fn(|i| a[i] + b[i])
}

#[inline(always)]
fn sub(a: Lane, b: Lane) -> Lane {
    std::array::from_fn(|i| a[i] - b[i])
}

/// The first `w` floats of `src` (the rest zero).
#[inline(always)]
fn load(src: &[f32], w: usize) -> Lane {
    if w == W {
        let mut a = [0.0; W];
        a.copy_from_slice(&src[..W]);
        a
    } else {
        let mut a = [0.0; W];
        a[..w].copy_from_slice(&src[..w]);
        a
    }
}

/// Store the first `w` floats of `v` into `dst`.
#[inline(always)]
fn store(dst: &mut [f32], v: &Lane, w: usize) {
    if w == W {
        dst[..W].copy_from_slice(v);
    } else {
        dst[..w].copy_from_slice(&v[..w]);
    }
}

crate::util::simd::isa_kernel!(
    /// `V[xi][tile][c]` for every tile of `n` positions.
    /// `pad` is scratch for the zero-bordered 10x10 copy of each position.
    fn input_transform = input_transform_impl, input_transform_avx2, input_transform_avx512,
    (x: &[f32], n: usize, c: usize, pad: &mut [f32], v: &mut [f32])
);

#[inline(always)]
fn input_transform_impl(x: &[f32], n: usize, c: usize, pad: &mut [f32], v: &mut [f32]) {
    let tiles = n * TILES;
    let vs = stride(tiles, c);
    assert!(x.len() >= n * 64 * c && v.len() >= 16 * vs && pad.len() >= n * 100 * c);
    // Each position on a 10x10 grid with a zero border: patches then read
    // without branches.
    // Only the border is zeroed: the interior is copied over.
    for p in 0..n {
        let base = p * 100 * c;
        pad[base..base + 10 * c].fill(0.0);
        pad[base + 90 * c..base + 100 * c].fill(0.0);
        for y in 0..8 {
            let src = &x[(p * 64 + y * 8) * c..(p * 64 + y * 8 + 8) * c];
            let row = base + (y + 1) * 10 * c;
            pad[row..row + c].fill(0.0);
            pad[row + c..row + 9 * c].copy_from_slice(src);
            pad[row + 9 * c..row + 10 * c].fill(0.0);
        }
    }
    for p in 0..n {
        for ty in 0..4 {
            for tx in 0..4 {
                let tile = p * TILES + ty * 4 + tx;
                let corner = (p * 100 + 2 * ty * 10 + 2 * tx) * c;
                let mut k0 = 0;
                while k0 < c {
                    let w = W.min(c - k0);
                    let d = |i: usize, j: usize| load(&pad[corner + (i * 10 + j) * c + k0..], w);
                    // Bᵀ d (rows), then · B (columns).
                    let mut t = [[0.0f32; W]; 16];
                    for j in 0..4 {
                        let (d0, d1, d2, d3) = (d(0, j), d(1, j), d(2, j), d(3, j));
                        t[j] = sub(d0, d2);
                        t[4 + j] = add(d1, d2);
                        t[8 + j] = sub(d2, d1);
                        t[12 + j] = sub(d1, d3);
                    }
                    for a in 0..4 {
                        let r = &t[a * 4..a * 4 + 4];
                        let out = [sub(r[0], r[2]), add(r[1], r[2]), sub(r[2], r[1]), sub(r[1], r[3])];
                        for (b, o) in out.iter().enumerate() {
                            let at = (a * 4 + b) * vs + tile * c + k0;
                            store(&mut v[at..], o, w);
                        }
                    }
                    k0 += w;
                }
            }
        }
    }
}

crate::util::simd::isa_kernel!(
    /// `out = relu(Aᵀ M A + bias [+ residual])` for every tile (without the
    /// ReLU when `relu` is false).
    fn output_transform = output_transform_impl, output_transform_avx2, output_transform_avx512,
    (m: &[f32], n: usize, c: usize, bias: &[f32], out: &mut [f32], residual: Option<&[f32]>, relu: bool)
);

#[inline(always)]
fn output_transform_impl(
    m: &[f32],
    n: usize,
    c: usize,
    bias: &[f32],
    out: &mut [f32],
    residual: Option<&[f32]>,
    relu: bool,
) {
    let tiles = n * TILES;
    let ms = stride(tiles, c);
    assert!(m.len() >= 16 * ms && out.len() >= n * 64 * c && bias.len() >= c);
    if let Some(r) = residual {
        assert!(r.len() >= n * 64 * c);
    }
    for tile in 0..tiles {
        let (p, ty, tx) = (tile / TILES, (tile % TILES) / 4, tile % 4);
        let cells = [0, 1, 8, 9].map(|d| (p * 64 + 2 * ty * 8 + 2 * tx + d) * c);
        let mut k0 = 0;
        while k0 < c {
            let w = W.min(c - k0);
            let mut mm = [[0.0f32; W]; 16];
            for (xi, mk) in mm.iter_mut().enumerate() {
                let at = xi * ms + tile * c + k0;
                *mk = load(&m[at..], w);
            }
            // Aᵀ M (rows), then · A (columns).
            let mut s = [[0.0f32; W]; 4];
            let mut q = [[0.0f32; W]; 4];
            for a in 0..4 {
                let r = &mm[a * 4..a * 4 + 4];
                s[a] = add(add(r[0], r[1]), r[2]);
                q[a] = sub(sub(r[1], r[2]), r[3]);
            }
            let y = [
                add(add(s[0], s[1]), s[2]),
                add(add(q[0], q[1]), q[2]),
                sub(sub(s[1], s[2]), s[3]),
                sub(sub(q[1], q[2]), q[3]),
            ];
            let b = load(&bias[k0..], w);
            for (yk, &cell) in y.iter().zip(&cells) {
                let mut o = add(*yk, b);
                if let Some(r) = residual {
                    o = add(o, load(&r[cell + k0..], w));
                }
                if relu {
                    o = std::array::from_fn(|i| o[i].max(0.0));
                }
                store(&mut out[cell + k0..], &o, w);
            }
            k0 += w;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::simd::Isa;

    /// The AVX2 kernel of the Winograd products gives the `gemm` crate's
    /// bits, on shapes that leave partial column blocks and an odd row.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_avx2_product_gives_gemms_bits() {
        if !Isa::Avx2.on_cpu() {
            eprintln!("NOTICE: this CPU does not run AVX2: the AVX2 product is not tested here");
            return;
        }
        for (tiles, ci, co) in [(16, 32, 32), (33, 45, 40), (128, 8, 24), (7, 64, 64), (16, 16, 8)] {
            let v: Vec<f32> = (0..tiles * ci)
                .map(|i| ((i * 7919) % 97) as f32 / 13.0 - 3.1)
                .collect();
            let u: Vec<f32> = (0..ci * co)
                .map(|i| ((i * 104729) % 89) as f32 / 17.0 - 2.3)
                .collect();
            let mut ours = vec![f32::NAN; tiles * co];
            let mut theirs = vec![f32::NAN; tiles * co];
            // SAFETY: AVX2 is present (checked above); the buffers hold
            // tiles x ci, ci x co and tiles x co floats.
            unsafe {
                point_gemm_avx2(tiles, ci, co, v.as_ptr(), u.as_ptr(), ours.as_mut_ptr());
                gemm_crate_product(Isa::Avx2, tiles, ci, co, &v, &u, &mut theirs);
            }
            let same = ours.iter().zip(&theirs).all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "tiles {tiles}, ci {ci}, co {co}: the bits differ");
        }
    }
}
