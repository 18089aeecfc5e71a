"""The plays the ScienceWorld examples are built from (`build_sciworld_examples`): per topic, one train
variation, a plan thought, and steps of (description, ReCode call line, done claim, [(thought, action)])."""
SPEC: dict[str, tuple[str, list]] = {
 "melt/4": ("Ice is kept in the freezer in the kitchen. Focus on the ice, put it in a metal pot on the stove, turn the stove on and let time pass until it melts.", [
   ("find the ice in the kitchen freezer and focus on it", "obs = find_and_focus_ice()", "focused on the ice in the freezer", [
     ("Ice is kept cold; the freezer is in the kitchen. I teleport there.", "teleport to kitchen"),
     ("I look at what the kitchen has.", "look around"),
     ("A closed freezer: ice would be in it. I open it.", "open freezer"),
     ("I look inside.", "look at freezer"),
     ("The freezer holds the ice. The task says to focus on the substance first.", "focus on ice")]),
   ("put the ice in a metal pot on the stove and turn the stove on", "obs = heat_ice_on_stove()", "the ice is in the metal pot on the stove, which is on", [
     ("A metal pot can go on the stove; pots are kept in the closed cupboard I saw.", "open cupboard"),
     ("I try to take a metal pot from it.", "pick up metal pot"),
     ("The ice goes into the pot.", "move ice to metal pot"),
     ("The pot goes on the stove.", "move metal pot to stove"),
     ("I turn the stove on to heat the ice.", "activate stove")]),
   ("wait until the ice melts, checking the pot", "obs = wait_until_melted()", "", [
     ("The world changes only as time passes; I wait one step.", "wait1"),
     ("I look at the pot to see whether the ice has melted.", "look at metal pot")]),
 ]),
 "use-thermometer/3": ("Fetch the thermometer from the kitchen and focus on it, then find unknown substance B in the bedroom, focus on it, measure it, and put it in the box the reading calls for.", [
   ("take the thermometer from the kitchen and focus on it", "obs = get_thermometer()", "holding the thermometer, focused on it", [
     ("A thermometer is usually in the kitchen; I teleport there.", "teleport to kitchen"),
     ("I look for it here.", "look around"),
     ("The kitchen has a thermometer; I pick it up.", "pick up thermometer"),
     ("The task says to focus on the thermometer first.", "focus on thermometer")]),
   ("take unknown substance B in the bedroom and focus on it", "obs = get_substance()", "holding unknown substance B, focused on it", [
     ("The substance is around the bedroom; I teleport there.", "teleport to bedroom"),
     ("I look for the substance and the boxes.", "look around"),
     ("Unknown substance B is here, and the blue and orange boxes; I pick the substance up.", "pick up unknown substance B"),
     ("Next the task says to focus on the substance.", "focus on unknown substance B")]),
   ("measure its temperature and put it in the box the reading calls for", "obs = measure_and_place()", "", [
     ("I measure it with the thermometer I hold.", "use thermometer in inventory on unknown substance B in inventory"),
     ("The reading is above -50.0 degrees, so it goes in the blue box.", "move unknown substance B in inventory to blue box")]),
 ]),
 "power-component/5": ("Focus on the green light bulb, then wire a circuit from the battery through the bulb and back with the two wires on the table, and let a step pass.", [
   ("focus on the green light bulb and learn the battery's terminals", "obs = focus_and_inspect()", "focused on the green light bulb; the battery has an anode and a cathode", [
     ("The task says to focus on the green light bulb first.", "focus on green light bulb"),
     ("I look at the battery to learn its terminals.", "look at battery")]),
   ("wire battery anode -> black wire -> bulb cathode, bulb anode -> blue wire -> battery cathode, then wait", "obs = build_circuit()", "", [
     ("The circuit starts at the battery's anode: the black wire's terminal 1.", "connect battery anode to black wire terminal 1"),
     ("The black wire's other end goes to the bulb's cathode.", "connect black wire terminal 2 to green light bulb cathode"),
     ("From the bulb's anode, the blue wire leads back.", "connect green light bulb anode to blue wire terminal 1"),
     ("The blue wire closes the circuit at the battery's cathode.", "connect blue wire terminal 2 to battery cathode"),
     ("The circuit is closed; the bulb lights only once time passes.", "wait1")]),
 ]),
 "find-animal/3": ("Animals and their eggs are outside, where I am: focus on one, carry it to the kitchen and put it in the orange box.", [
   ("focus on an animal seen here and pick it up", "obs = focus_and_take_animal()", "holding the dove egg, focused on it", [
     ("A dove egg is here: an egg is an animal at an early life stage. I focus on it.", "focus on dove egg"),
     ("I pick it up to carry it.", "pick up dove egg")]),
   ("bring it to the orange box in the kitchen", "obs = deliver_animal()", "", [
     ("The orange box is in the kitchen; I teleport there.", "teleport to kitchen"),
     ("I put the egg from my inventory in the orange box.", "move dove egg in inventory to orange box")]),
 ]),
 "grow-plant/0": ("Seeds are in the kitchen: take the seed jar, plant an apple seed in an empty flower pot in the greenhouse, focus on the seed, and let time pass until the plant reproduces.", [
   ("fetch the seed jar from the kitchen", "obs = fetch_seed_jar()", "holding the seed jar", [
     ("Seeds can be found in the kitchen; I teleport there.", "teleport to kitchen"),
     ("I look for the seeds.", "look around"),
     ("The seed jar holds the seeds; I take the whole jar.", "pick up seed jar")]),
   ("plant an apple seed in flower pot 3 in the greenhouse and focus on it", "obs = plant_seed()", "the apple seed is in flower pot 3, focused", [
     ("Flower pots are in the greenhouse.", "teleport to greenhouse"),
     ("I look for an empty flower pot.", "look around"),
     ("Flower pot 3 has soil and water and no plant; the apple seed goes in.", "move apple seed in seed jar to flower pot 3"),
     ("The request is ambiguous; every choice is the same move, so I answer 0.", "0"),
     ("Now I focus on the planted seed.", "focus on apple seed in flower pot 3")]),
   ("wait for the plant to grow, checking the pot", "obs = wait_for_growth()", "", [
     ("The plant grows only as time passes; I wait.", "wait"),
     ("I check the pot.", "look at flower pot 3"),
     ("A seedling; it needs more time to reach reproduction.", "wait")]),
 ]),
 "chemistry-mix-paint-secondary-color/1": ("Green is blue plus yellow: pour both paints from the cups on the table into the bowl, mix it, and focus on the green paint.", [
   ("pour blue and yellow paint into the bowl", "obs = pour_paints()", "the bowl holds blue and yellow paint", [
     ("Green is made of blue and yellow. I pour the blue paint into the bowl (the name inside the parentheses, not the cup's).", "pour blue paint into bowl"),
     ("Now the yellow paint.", "pour yellow paint into bowl"),
     ("I check what the bowl holds.", "look at bowl")]),
   ("mix the bowl and focus on the green paint", "obs = mix_and_focus()", "", [
     ("Both paints are in; I mix them.", "mix bowl"),
     ("The mix made green paint; I focus on it.", "focus on green paint")]),
 ]),
 "lifespan-longest-lived/0": ("The animals are outside: go there, see which are there, and focus on the one whose kind lives longest.", [
   ("go outside and see the animals", "obs = see_animals()", "outside: a baby brown bear, a baby mouse, a baby wolf", [
     ("The animals are in the 'outside' location; I teleport there.", "teleport to outside"),
     ("I look around to see which animals are here.", "look around")]),
   ("focus on the animal that lives longest", "obs = focus_longest_lived()", "", [
     ("A brown bear lives about 25 years, a wolf about 10, a mouse 1 or 2: the bear lives longest.", "focus on baby brown bear")]),
 ]),
 "identify-life-stages-2/3": ("The flower pots outside show the banana plant at each stage: focus on them from seed to seedling, adult, and reproducing (the dead one is not a life stage to pick).", [
   ("focus on the banana plant's stages from earliest to latest", "obs = focus_stages_in_order()", "", [
     ("Pot 6 holds a banana seed: the earliest stage.", "focus on banana seed"),
     ("Next the seedling, in pot 8.", "focus on banana tree in the seedling stage"),
     ("Then the adult, in pot 9.", "focus on banana tree in the adult stage"),
     ("Last the reproducing stage, in pot 4.", "focus on banana tree in the reproducing stage")]),
 ]),
 "inclined-plane-determine-angle/0": ("A block slides faster down a steeper plane. Put the block on each plane for the same time and compare how far it went; the slower one has the shallower angle.", [
   ("slide the block on plane C for 10 steps and see how far it went", "obs = slide_on_c()", "on C the block went about 59% down in 10 steps", [
     ("The planes are in the workshop; I teleport there.", "teleport to workshop"),
     ("I look for the planes and the block.", "look around"),
     ("I put the wood block on inclined plane C.", "move block to inclined plane c"),
     ("I let 10 steps pass.", "wait"),
     ("How far did it slide?", "look at inclined plane c")]),
   ("slide the block on plane B for the same time and focus on the slower plane", "obs = slide_on_b_and_choose()", "", [
     ("Now the same on inclined plane B.", "move block to inclined plane b"),
     ("The same 10 steps.", "wait"),
     ("How far did it slide on B?", "look at inclined plane b"),
     ("On B it went 56%, less than C's 59%: B is the shallower plane.", "focus on inclined plane b")]),
 ]),
 "mendelian-genetics-known-plant/0": ("Mendel's own pea plants: tall plant height is the dominant trait, so the answer is the red box, which is in the greenhouse.", [
   ("go to the greenhouse and focus on the box for a dominant trait", "obs = answer_dominant()", "", [
     ("The boxes are with the pea seeds in the greenhouse; I teleport there.", "teleport to greenhouse"),
     ("In pea plants tall height is dominant over short (Mendel's experiments), so I focus on the red box.", "focus on red box")]),
 ]),
}
