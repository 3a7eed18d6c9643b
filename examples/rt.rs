use burn::tensor::Device;
use damone::net::*;
fn main() {
    let d = Device::flex();
    d.seed(3);
    let cfg = ModelConfig::default();
    let a = cfg.init(&d);
    let d2 = Device::flex(); d2.seed(3);
    let a2 = cfg.init(&d2);
    let ba = weights_to_bytes(&a).unwrap();
    let ba2 = weights_to_bytes(&a2).unwrap();
    println!("same init bytes: {} (len {} {})", ba == ba2, ba.len(), ba2.len());
    let diff = ba.iter().zip(&ba2).filter(|(x,y)| x!=y).count();
    println!("differing bytes {diff}");
    let b = net_from_bytes(&cfg, ba.clone(), &d, "x").unwrap();
    let bb = weights_to_bytes(&b).unwrap();
    println!("roundtrip bytes equal: {}", ba == bb);
    let g = damone::game::Game::from_variant(damone::game::Variant::Standard, Default::default());
    let o = vec![Observation::of_game(&g)];
    let ea = NetEvaluator::new(&a, d.clone()); let eb = NetEvaluator::new(&b, d.clone());
    let (pa, va) = ea.infer(&o); let (pb, vb) = eb.infer(&o);
    println!("outputs equal: {} {}", pa == pb, va == vb);
}
