//! Which instruction set the numeric kernels run on: the network's GEMMs
//! and Winograd transforms (inference and the hand-written training
//! step) and the learned evaluation's loops.
//!
//! By default the best the CPU has: AVX-512 where it has AVX512F, AVX2
//! with FMA, else the portable loops (every other CPU, aarch64 included,
//! where the GEMMs take the `gemm` crate's own choice). The environment
//! variable `DAMONE_SIMD` (`avx512`, `avx2`, `portable`, `auto`) forces a
//! path, so that every path is tested against the network's contract and
//! measured on one machine; a path the CPU lacks is never run: the best it
//! has below it is used, and [`isa_note`] says so.

use std::sync::OnceLock;

/// An instruction set the kernels are compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isa {
    /// Plain loops the compiler vectorises for the target's baseline.
    Portable,
    /// AVX2 with FMA (x86-64).
    Avx2,
    /// AVX-512 (AVX512F, VL and BW; x86-64).
    Avx512,
}

impl Isa {
    /// Every path, slowest first.
    pub const ALL: [Isa; 3] = [Isa::Portable, Isa::Avx2, Isa::Avx512];

    /// The name `DAMONE_SIMD` takes.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
        }
    }

    /// True when this CPU runs the path.
    pub fn on_cpu(self) -> bool {
        match self {
            Isa::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => {
                Isa::Avx2.on_cpu()
                    && is_x86_feature_detected!("avx512f")
                    && is_x86_feature_detected!("avx512vl")
                    && is_x86_feature_detected!("avx512bw")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The best path this CPU runs.
    pub fn best() -> Isa {
        Isa::ALL
            .into_iter()
            .rev()
            .find(|i| i.on_cpu())
            .unwrap_or(Isa::Portable)
    }
}

/// The path chosen for this process, and why where it is not what
/// `DAMONE_SIMD` asked for.
#[derive(Clone, Debug, PartialEq)]
struct Choice {
    isa: Isa,
    note: Option<String>,
}

/// The choice a value of `DAMONE_SIMD` gives on a CPU whose paths are
/// `on_cpu`.
fn choose(value: Option<&str>, on_cpu: impl Fn(Isa) -> bool) -> Choice {
    let best = Isa::ALL
        .into_iter()
        .rev()
        .find(|&i| on_cpu(i))
        .unwrap_or(Isa::Portable);
    let asked = match value.map(str::trim) {
        None | Some("") | Some("auto") => {
            return Choice {
                isa: best,
                note: None,
            }
        }
        Some(name) => Isa::ALL.into_iter().find(|i| i.name() == name),
    };
    match asked {
        None => Choice {
            isa: best,
            note: Some(format!(
                "DAMONE_SIMD={}: expected auto, avx512, avx2 or portable; {} is used",
                crate::util::clip(value.unwrap_or_default(), 40),
                best.name()
            )),
        },
        Some(isa) if on_cpu(isa) => Choice { isa, note: None },
        Some(isa) => {
            let below = Isa::ALL
                .into_iter()
                .rev()
                .find(|&i| i < isa && on_cpu(i))
                .unwrap_or(Isa::Portable);
            Choice {
                isa: below,
                note: Some(format!(
                    "DAMONE_SIMD={}: this CPU does not run it; {} is used",
                    isa.name(),
                    below.name()
                )),
            }
        }
    }
}

fn choice() -> &'static Choice {
    static CHOICE: OnceLock<Choice> = OnceLock::new();
    CHOICE.get_or_init(|| choose(std::env::var("DAMONE_SIMD").ok().as_deref(), Isa::on_cpu))
}

/// The path the kernels run on in this process.
#[inline]
pub fn isa() -> Isa {
    choice().isa
}

/// Why the path is not the one `DAMONE_SIMD` asked for (an unknown name,
/// or a path this CPU does not run); None where it is.
pub fn isa_note() -> Option<&'static str> {
    choice().note.as_deref()
}

/// The chosen path in words, for benchmark reports: `avx2 (best: avx2)`.
pub fn describe() -> String {
    let mut text = format!("{} (best on this CPU: {})", isa().name(), Isa::best().name());
    if let Some(note) = isa_note() {
        text.push_str("; ");
        text.push_str(note);
    }
    text
}

/// `dst = alpha * dst + beta * lhs * rhs` in `f32` (`dst` read only with
/// `read_dst`), matrices given by their first element and their column
/// and row strides, on the path `isa` (callers pass [`isa()`]): the `gemm`
/// crate's `gemm`. The best path is the crate's own choice; another is
/// called directly, after the same orientation (the destination made
/// column-major by swapping the operands).
///
/// # Safety
/// As `gemm::gemm`: each matrix holds every element its dimensions and
/// strides reach, and `dst` aliases neither operand. Strides are not
/// negative, and the CPU runs `isa`.
#[allow(clippy::too_many_arguments)]
pub unsafe fn sgemm(
    isa: Isa,
    m: usize,
    n: usize,
    k: usize,
    dst: *mut f32,
    dst_cs: isize,
    dst_rs: isize,
    read_dst: bool,
    lhs: *const f32,
    lhs_cs: isize,
    lhs_rs: isize,
    rhs: *const f32,
    rhs_cs: isize,
    rhs_rs: isize,
    alpha: f32,
    beta: f32,
    par: gemm::Parallelism,
) {
    if isa == Isa::best() {
        gemm::gemm(
            m, n, k, dst, dst_cs, dst_rs, read_dst, lhs, lhs_cs, lhs_rs, rhs, rhs_cs, rhs_rs, alpha, beta,
            false, false, false, par,
        );
        return;
    }
    debug_assert!([dst_cs, dst_rs, lhs_cs, lhs_rs, rhs_cs, rhs_rs]
        .iter()
        .all(|&s| s >= 0));
    // The microkernels prefer a column-major destination: transpose the
    // product where the destination is row-major, as the crate does.
    let (m, n, dst_cs, dst_rs, lhs, lhs_cs, lhs_rs, rhs, rhs_cs, rhs_rs) = if dst_cs.abs() < dst_rs.abs() {
        (n, m, dst_rs, dst_cs, rhs, rhs_rs, rhs_cs, lhs, lhs_rs, lhs_cs)
    } else {
        (m, n, dst_cs, dst_rs, lhs, lhs_cs, lhs_rs, rhs, rhs_cs, rhs_rs)
    };
    macro_rules! on {
        ($kernels:ident, $simd:ident, $lanes:expr) => {{
            use gemm_f32::microkernel::$kernels::f32 as kern;
            let simd =
                <gemm_common::simd::$simd as gemm_common::simd::MixedSimd<f32, f32, f32, f32>>::try_new()
                    .expect("the path chosen runs on this CPU");
            gemm_common::gemm::gemm_basic_generic::<
                _,
                f32,
                $lanes,
                { kern::MR_DIV_N * $lanes },
                { kern::NR },
                { kern::MR_DIV_N },
                { kern::H_M },
                { kern::H_N },
            >(
                simd,
                m,
                n,
                k,
                dst,
                dst_cs,
                dst_rs,
                read_dst,
                lhs,
                lhs_cs,
                lhs_rs,
                rhs,
                rhs_cs,
                rhs_rs,
                alpha,
                beta,
                false,
                false,
                false,
                |a, b, c| a * b + c,
                &kern::UKR,
                &kern::H_UKR,
                false,
                par,
            )
        }};
    }
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => on!(avx512f, V4, 16),
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => on!(fma, V3, 8),
        _ => on!(scalar, Scalar, 1),
    }
}

/// Define `fn $name`, which runs `$generic` (an `#[inline(always)]`
/// function of plain loops) compiled for the path chosen ([`isa()`]):
/// `$avx512` and `$avx2` are the copies compiled with those instruction
/// sets enabled (x86-64), the portable path calls `$generic` itself.
macro_rules! isa_kernel {
    ($(#[$meta:meta])* $vis:vis fn $name:ident = $generic:ident, $avx2:ident, $avx512:ident, ($($arg:ident: $ty:ty),*) $(-> $ret:ty)?) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        unsafe fn $avx2($($arg: $ty),*) $(-> $ret)? {
            $generic($($arg),*)
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx2,fma")]
        unsafe fn $avx512($($arg: $ty),*) $(-> $ret)? {
            $generic($($arg),*)
        }

        $(#[$meta])*
        #[inline]
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            match $crate::util::simd::isa() {
                // SAFETY: the path chosen runs on this CPU (util::simd).
                #[cfg(target_arch = "x86_64")]
                $crate::util::simd::Isa::Avx512 => unsafe { $avx512($($arg),*) },
                // SAFETY: as above.
                #[cfg(target_arch = "x86_64")]
                $crate::util::simd::Isa::Avx2 => unsafe { $avx2($($arg),*) },
                _ => $generic($($arg),*),
            }
        }
    };
}
pub(crate) use isa_kernel;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damone_simd_chooses_a_path_the_cpu_runs() {
        let avx2_only = |i: Isa| i <= Isa::Avx2;
        assert_eq!(
            choose(None, avx2_only),
            Choice {
                isa: Isa::Avx2,
                note: None
            }
        );
        assert_eq!(choose(Some("auto"), avx2_only).isa, Isa::Avx2);
        assert_eq!(
            choose(Some("portable"), avx2_only),
            Choice {
                isa: Isa::Portable,
                note: None
            }
        );
        let c = choose(Some("avx512"), avx2_only);
        assert_eq!(c.isa, Isa::Avx2);
        assert!(c.note.unwrap().contains("does not run it; avx2 is used"));
        let c = choose(Some("sse9"), avx2_only);
        assert_eq!(c.isa, Isa::Avx2);
        assert!(c
            .note
            .unwrap()
            .contains("expected auto, avx512, avx2 or portable"));
        assert_eq!(choose(Some("avx512"), |i| i == Isa::Portable).isa, Isa::Portable);
        assert!(Isa::Portable.on_cpu() && Isa::best().on_cpu());
    }

    /// Every path this CPU runs gives the crate's product, row- and
    /// column-major destinations alike (the network's contract tests run
    /// on each path through `DAMONE_SIMD`).
    #[test]
    fn every_path_multiplies_as_the_crate_does() {
        let (m, n, k) = (37, 29, 45);
        let lhs: Vec<f32> = (0..m * k).map(|i| ((i * 7919) % 23) as f32 / 7.0 - 1.5).collect();
        let rhs: Vec<f32> = (0..k * n)
            .map(|i| ((i * 104729) % 31) as f32 / 9.0 - 1.7)
            .collect();
        let mut want = vec![0.0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                want[i * n + j] = (0..k).map(|t| lhs[i * k + t] * rhs[t * n + j]).sum();
            }
        }
        if let Some(note) = isa_note() {
            eprintln!("NOTICE: {note}");
        }
        for isa in Isa::ALL {
            if !isa.on_cpu() {
                eprintln!(
                    "NOTICE: this CPU does not run the {} path: not tested here",
                    isa.name()
                );
                continue;
            }
            for row_major in [true, false] {
                let mut dst = vec![0.0f32; m * n];
                let (cs, rs) = if row_major {
                    (1, n as isize)
                } else {
                    (m as isize, 1)
                };
                // SAFETY: the buffers hold m x k, k x n and m x n floats.
                unsafe {
                    sgemm(
                        isa,
                        m,
                        n,
                        k,
                        dst.as_mut_ptr(),
                        cs,
                        rs,
                        false,
                        lhs.as_ptr(),
                        1,
                        k as isize,
                        rhs.as_ptr(),
                        1,
                        n as isize,
                        0.0,
                        1.0,
                        gemm::Parallelism::None,
                    )
                };
                for i in 0..m {
                    for j in 0..n {
                        let got = dst[(i as isize * rs + j as isize * cs) as usize];
                        assert!(
                            (got - want[i * n + j]).abs() < 1e-3,
                            "{isa:?} row-major {row_major}: {i},{j}"
                        );
                    }
                }
            }
        }
    }
}
