//! Entry point of the playground, built by trunk from the root `index.html`.

fn main() {
    placement_web::start();
}
