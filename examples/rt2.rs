use burn::tensor::Device;
use damone::data::*;
use damone::game::*;
use damone::net::*;
use damone::train::*;
fn main() {
    let d = Device::flex(); d.seed(3);
    let mut w = ReplayWindow::new(1000);
    let p = Position::start(Variant::Standard);
    for _ in 0..100 { w.extend([Sample{pos:p, repeated:false, no_progress:0.0, policy: vec![0.125;8], z:[1.0,0.0,0.0], q:[0.5,0.5,0.0]}]); }
    let cfg = ModelConfig{blocks:1, channels:8, value_hidden:8};
    let mut a = Trainer::new(cfg.clone(), TrainParams::default(), d.clone());
    let mut rng = damone::util::rng_stream(1,"x",0);
    a.train(&w, 3, &mut rng, ||{});
    let wb = a.weights_bytes().unwrap(); let ob = a.optimizer_bytes().unwrap();
    let mut b = Trainer::new(cfg.clone(), TrainParams::default(), d.clone());
    b.restore(wb.clone(), ob.clone(), a.step).unwrap();
    println!("restored weights equal: {}", b.weights_bytes().unwrap() == wb);
    println!("restored optim equal: {}", b.optimizer_bytes().unwrap() == ob);
    let mut c = Trainer::new(cfg.clone(), TrainParams::default(), d.clone());
    let fresh = c.optimizer_bytes().unwrap();
    c.restore(wb.clone(), fresh, a.step).unwrap();
    let mut r3 = damone::util::rng_stream(1,"y",0);
    c.train(&w, 2, &mut r3, ||{});
    let mut r1 = damone::util::rng_stream(1,"y",0); let mut r2 = r1.clone();
    let la = a.train(&w, 2, &mut r1, ||{}); let lb = b.train(&w, 2, &mut r2, ||{});
    println!("losses {:?} {:?}", la, lb);
    println!("after training equal: {}", a.weights_bytes().unwrap() == b.weights_bytes().unwrap());
    println!("b equals fresh-state c: {}", c.weights_bytes().unwrap() == b.weights_bytes().unwrap());
    println!("optim bytes len a {} b {} c {}", a.optimizer_bytes().unwrap().len(), b.optimizer_bytes().unwrap().len(), c.optimizer_bytes().unwrap().len());
}
#[allow(dead_code)]
fn unused() {}
