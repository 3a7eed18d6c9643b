//! Where the network runs: the CPU (burn's flex backend for training, the
//! fast inference path for search) or, in builds with the `gpu` cargo
//! feature, a GPU through burn's wgpu backend (Vulkan, Metal or DX12).
//!
//! [`DeviceChoice`] is what a user asks for (`cpu`, `gpu` or `auto`);
//! [`ComputeDevice::select`] turns it into a device and says which one it
//! picked. `auto` takes a hardware GPU when the feature is on and wgpu finds
//! one; it does not take a software adapter (Mesa's lavapipe, which runs
//! Vulkan on the CPU and is far slower than the flex backend): ask for
//! `gpu` to use one anyway, as the tests do.

use burn::tensor::Device;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The device a user asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceChoice {
    /// A hardware GPU when this build has the `gpu` feature and one is
    /// found, else the CPU.
    #[default]
    Auto,
    /// The CPU.
    Cpu,
    /// The GPU (any wgpu adapter, software ones included); an error when
    /// this build lacks the `gpu` feature or no adapter is found.
    Gpu,
}

impl fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DeviceChoice::Auto => "auto",
            DeviceChoice::Cpu => "cpu",
            DeviceChoice::Gpu => "gpu",
        })
    }
}

impl FromStr for DeviceChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(DeviceChoice::Auto),
            "cpu" => Ok(DeviceChoice::Cpu),
            "gpu" => Ok(DeviceChoice::Gpu),
            other => Err(format!("unknown device '{other}' (expected cpu, gpu or auto)")),
        }
    }
}

/// Why a device could not be had.
#[derive(Debug, Clone, thiserror::Error)]
pub enum DeviceError {
    /// This build has no GPU support (the `gpu` feature).
    #[error("this build has no GPU support: rebuild with `cargo build --release --features gpu`, or use --device cpu")]
    NoGpuFeature,
    /// No GPU adapter could be opened; the message says why.
    #[error("no GPU adapter could be opened ({0}); install the GPU's Vulkan driver (or Mesa's mesa-vulkan-drivers for a software one), or use --device cpu")]
    NoAdapter(String),
}

/// A device picked for the network, with a line saying which.
#[derive(Clone, Debug)]
pub struct ComputeDevice {
    device: Device,
    gpu: bool,
    name: String,
}

impl ComputeDevice {
    /// The CPU: burn's flex backend and the fast inference path.
    pub fn cpu() -> ComputeDevice {
        ComputeDevice {
            device: Device::flex(),
            gpu: false,
            name: "cpu".to_string(),
        }
    }

    /// The device for `choice`. `auto` never fails: it falls back to the
    /// CPU, and [`ComputeDevice::describe`] says why.
    ///
    /// # Errors
    /// [`DeviceError`] for `gpu` when this build has no `gpu` feature or no
    /// adapter opens.
    pub fn select(choice: DeviceChoice) -> Result<ComputeDevice, DeviceError> {
        match choice {
            DeviceChoice::Cpu => Ok(ComputeDevice::cpu()),
            DeviceChoice::Gpu => gpu::open().map(|(device, name, _)| ComputeDevice {
                device,
                gpu: true,
                name,
            }),
            DeviceChoice::Auto => Ok(match gpu::open() {
                Ok((device, name, false)) => ComputeDevice {
                    device,
                    gpu: true,
                    name,
                },
                Ok((_, name, true)) => {
                    let mut c = ComputeDevice::cpu();
                    c.name = format!(
                        "{} (auto: the only GPU adapter is {name}, a software one; --device gpu uses it)",
                        c.name
                    );
                    c
                }
                Err(DeviceError::NoGpuFeature) => ComputeDevice::cpu(),
                Err(e) => {
                    let mut c = ComputeDevice::cpu();
                    c.name = format!("{} (auto: {e})", c.name);
                    c
                }
            }),
        }
    }

    /// The burn device (plain; training takes its autodiff twin).
    pub fn burn(&self) -> &Device {
        &self.device
    }

    /// Whether this is a GPU (wgpu) device.
    pub fn is_gpu(&self) -> bool {
        self.gpu
    }

    /// One line naming the device, e.g. `gpu: NVIDIA H100 (discrete,
    /// Vulkan)` or `cpu`.
    pub fn describe(&self) -> &str {
        &self.name
    }
}

impl Default for ComputeDevice {
    fn default() -> Self {
        ComputeDevice::cpu()
    }
}

#[cfg(feature = "gpu")]
mod gpu {
    use super::DeviceError;
    use burn::tensor::wgpu::wgpu;
    use burn::tensor::Device;
    use std::sync::OnceLock;

    /// wgpu's runtime can be set up once per process: keep what the first
    /// call found (device, name, software adapter?).
    static OPENED: OnceLock<Result<(Device, String, bool), String>> = OnceLock::new();

    pub fn open() -> Result<(Device, String, bool), DeviceError> {
        OPENED
            .get_or_init(|| {
                // wgpu panics in some drivers' error paths; keep that out of
                // the caller's way and report it as "no adapter".
                let r = std::panic::catch_unwind(|| Device::wgpu_options().init_with_setup());
                match r {
                    Ok(Ok((device, setup))) => {
                        let info = setup.adapter.get_info();
                        let software = info.device_type == wgpu::DeviceType::Cpu;
                        let kind = match info.device_type {
                            wgpu::DeviceType::DiscreteGpu => "discrete",
                            wgpu::DeviceType::IntegratedGpu => "integrated",
                            wgpu::DeviceType::VirtualGpu => "virtual",
                            wgpu::DeviceType::Cpu => "software",
                            wgpu::DeviceType::Other => "other",
                        };
                        let name = format!("gpu: {} ({kind}, {:?})", info.name, info.backend);
                        Ok((device, name, software))
                    }
                    Ok(Err(e)) => Err(e.to_string().replace('\n', " ")),
                    Err(_) => Err("the wgpu runtime panicked while opening the adapter".to_string()),
                }
            })
            .clone()
            .map_err(DeviceError::NoAdapter)
    }
}

#[cfg(not(feature = "gpu"))]
mod gpu {
    use super::DeviceError;
    use burn::tensor::Device;

    pub fn open() -> Result<(Device, String, bool), DeviceError> {
        Err(DeviceError::NoGpuFeature)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_parse_and_print() {
        for c in [DeviceChoice::Auto, DeviceChoice::Cpu, DeviceChoice::Gpu] {
            assert_eq!(c.to_string().parse::<DeviceChoice>(), Ok(c));
        }
        assert_eq!(" GPU ".parse::<DeviceChoice>(), Ok(DeviceChoice::Gpu));
        let e = "tpu".parse::<DeviceChoice>().unwrap_err();
        assert!(e.contains("'tpu'") && e.contains("cpu, gpu or auto"), "{e}");
    }

    #[test]
    fn cpu_and_auto_always_give_a_device() {
        assert!(!ComputeDevice::select(DeviceChoice::Cpu).unwrap().is_gpu());
        let auto = ComputeDevice::select(DeviceChoice::Auto).unwrap();
        assert!(!auto.describe().is_empty());
    }

    #[cfg(not(feature = "gpu"))]
    #[test]
    fn gpu_without_the_feature_says_how_to_get_it() {
        let e = ComputeDevice::select(DeviceChoice::Gpu).unwrap_err().to_string();
        assert!(e.contains("--features gpu"), "{e}");
        assert!(!ComputeDevice::select(DeviceChoice::Auto).unwrap().is_gpu());
    }
}
