/**
 * The knowledge-flow evaluation set: an owner's notes on unrelated subjects, questions worded the
 * way people and agents word them (greetings, paraphrases, other vocabulary, misspellings,
 * several clauses), each answered by one note, and off-topic questions no note answers.
 *
 * Written before the run it is measured by and never tuned on: the relevance threshold was
 * calibrated on another set (packages/knowledge/test/fixtures/relevance-eval.ts), whose subjects
 * none of these notes share.
 */

export interface FlowNote {
  name: string;
  text: string;
}

export interface FlowQuestion {
  question: string;
  /** The note that answers it. */
  note: string;
}

export const FLOW_NOTES: FlowNote[] = [
  {
    name: 'dishwasher.md',
    text: '# Dishwasher\n\nWhen dishes come out with a white film, the rinse aid compartment is empty or the water is hard: refill the rinse aid and add dishwasher salt to the softener. Clean the filter at the bottom every month; a clogged filter leaves food bits on plates.',
  },
  {
    name: 'tomato-growing.md',
    text: '# Growing tomatoes\n\nPinch out the side shoots that grow between the main stem and the branches on cordon varieties. Water deeply twice a week rather than a little every day; irregular watering causes blossom end rot, the black patch at the bottom of the fruit.',
  },
  {
    name: 'vpn-travel.md',
    text: '# Laptop security when travelling\n\nBefore a business trip, turn on full-disk encryption (BitLocker or FileVault) and never leave the laptop in a hotel room unattended; use the hotel safe. Report a lost or stolen device to the security desk within one hour.',
  },
  {
    name: 'sql-indexes.md',
    text: '# Database indexes\n\nA query that filters on a column without an index scans the whole table. Add a composite index in the order of the WHERE clause equality columns first, then the range column. Use EXPLAIN QUERY PLAN to check that the index is used.',
  },
  {
    name: 'running-shoes.md',
    text: '# Running shoes\n\nReplace running shoes every 600 to 800 km; worn-out midsole foam no longer absorbs impact and shin splints follow. Buy them in the afternoon, when feet are slightly swollen, with a thumb width of room at the toe.',
  },
  {
    name: 'cat-litter.md',
    text: '# Cat litter box\n\nKeep one litter box per cat plus one, in quiet places. A cat that suddenly pees outside the box may have a urinary infection: see the vet. Scoop daily and change the whole litter weekly; many cats refuse scented litter.',
  },
  {
    name: 'invoice-payment.md',
    text: '# Paying supplier invoices\n\nSupplier invoices are paid within 30 days of receipt. Each invoice needs a purchase order number; the finance team rejects invoices without one. Invoices over 10,000 euros need the approval of a second manager.',
  },
  {
    name: 'rust-lifetimes.md',
    text: "# Rust borrow checker\n\nThe error 'borrowed value does not live long enough' means a reference outlives the data it points to. Return an owned value (String instead of &str), clone the data, or move the value into the struct instead of borrowing it.",
  },
  {
    name: 'mould-bathroom.md',
    text: '# Bathroom mould\n\nBlack spots on the silicone and grout come from condensation. Run the extractor fan for 20 minutes after a shower, wipe the tiles dry, and clean the spots with diluted bleach. Silicone that stays black must be cut out and replaced.',
  },
  {
    name: 'passport-renewal.md',
    text: '# Passport renewal\n\nApply for a new passport at least three months before travel; many countries require six months of validity left on entry. You need a recent biometric photo and the old passport. Urgent renewal costs more and takes a week.',
  },
  {
    name: 'headphones-pairing.md',
    text: '# Bluetooth headphones\n\nIf wireless earbuds will not connect, forget the device in the phone settings, put both buds back in the case, and hold the case button for 15 seconds until the light flashes to reset them, then pair again.',
  },
  {
    name: 'sauna.md',
    text: '# Using the sauna\n\nStay 8 to 15 minutes per round at 80 to 90 °C, then cool down with a cold shower or plunge and rest for as long as you were inside. Drink water between rounds. People with heart problems should ask a doctor first.',
  },
  {
    name: 'oncall-rotation.md',
    text: '# On-call rotation\n\nThe on-call week starts Monday at 10:00. To swap a shift, agree with a colleague and change it in PagerDuty yourself; tell the team lead. Acknowledge a page within 5 minutes; escalate to the secondary after 15 minutes without progress.',
  },
  {
    name: 'cast-iron.md',
    text: '# Cast iron pan care\n\nSeason a cast iron skillet by rubbing a thin layer of oil on it and baking it upside down at 250 °C for an hour. Do not soak it or put it in the dishwasher; rust spots are scrubbed off with steel wool and the pan seasoned again.',
  },
  {
    name: 'heat-pump.md',
    text: '# Heat pump heating\n\nA heat pump runs best at a low, steady flow temperature: leave the thermostat at one setting day and night instead of turning it down. Defrost cycles in cold, damp weather are normal, the steam from the outdoor unit is not smoke.',
  },
  {
    name: 'interview-process.md',
    text: '# Hiring interviews\n\nCandidates go through a phone screen, a take-home exercise of at most three hours, and an onsite loop of four interviews. Interviewers submit written feedback in the applicant tracking system within 24 hours, before talking to each other.',
  },
  {
    name: 'kayaking.md',
    text: '# Sea kayaking\n\nAlways wear a buoyancy aid and check the tide tables and wind forecast; offshore wind above 15 knots makes it hard to paddle back to the beach. Practise the wet exit and an assisted rescue before going out alone.',
  },
  {
    name: 'print-3d.md',
    text: '# 3D printing\n\nWhen the first layer does not stick to the bed, level the bed again, clean it with isopropyl alcohol, and lower the nozzle a little. Warping corners on ABS prints need an enclosure and a heated bed at 100 °C.',
  },
  {
    name: 'migraine.md',
    text: '# Migraine\n\nTake the pain medicine at the first sign of a migraine, not after it has built up. Keep a headache diary to find triggers such as missed meals, too little sleep or red wine. More than four attacks a month: ask a doctor about prevention.',
  },
  {
    name: 'typescript-strict.md',
    text: "# TypeScript strict mode\n\nWith strict mode on, 'Object is possibly undefined' means the compiler cannot prove a value exists: narrow it with an if check, use optional chaining, or give a default with ??. Avoid the non-null assertion unless you are sure.",
  },
  {
    name: 'moving-house.md',
    text: '# Moving house\n\nBook the removal company six weeks ahead, register the new address with the town hall within two weeks of moving, and redirect the post for three months. Take meter readings on the day you move out.',
  },
  {
    name: 'birdwatching.md',
    text: '# Birdwatching\n\nBinoculars of 8x42 suit most birdwatchers: bright, with a wide field of view. Go out in the first two hours after sunrise, when birds are most active and singing. Learning songs helps find birds hidden in the leaves.',
  },
  {
    name: 'expense-travel-booking.md',
    text: '# Booking work trips\n\nBusiness travel is booked through the travel portal, not privately. Trains are preferred for trips under four hours; flights need economy class unless the flight lasts more than six hours. Hotels up to 150 euros a night.',
  },
  {
    name: 'ssh-keys.md',
    text: '# SSH keys\n\nGenerate a key with ssh-keygen -t ed25519, add the public key to the server in ~/.ssh/authorized_keys, and keep the private key readable only by you (chmod 600). Permission denied (publickey) usually means the wrong key or loose file permissions.',
  },
  {
    name: 'watercolour.md',
    text: '# Watercolour painting\n\nStretch the paper or use 300 g/m² paper so it does not buckle when wet. Work from light to dark, since white comes from the paper itself. A wet-on-wet wash gives soft edges; wait until it is dry for sharp ones.',
  },
  {
    name: 'snow-chains.md',
    text: '# Winter driving\n\nFit snow chains on the driving wheels before the road is covered, practise once at home, and do not exceed 50 km/h with chains on. Winter tyres are compulsory in many mountain areas from November to April.',
  },
  {
    name: 'chickens.md',
    text: '# Backyard chickens\n\nHens lay less in winter because they need about 14 hours of daylight. Lock them in the coop at dusk against foxes, give them crushed oyster shell for strong eggshells, and change the bedding every week.',
  },
];

export const FLOW_QUESTIONS: FlowQuestion[] = [
  // dishwasher
  {
    question: 'Hi! Why do my glasses come out of the dish washer all cloudy and white?',
    note: 'dishwasher.md',
  },
  {
    question: 'There are still bits of food stuck on the plates after a wash cycle, any idea what to check?',
    note: 'dishwasher.md',
  },
  {
    question: 'Quick question — where does the salt go in the dishwasher and why does it need it?',
    note: 'dishwasher.md',
  },
  // tomatoes
  { question: 'My tomatos have black rotten bottoms, what am I doing wrong?', note: 'tomato-growing.md' },
  {
    question: 'Hello, should I remove the little shoots growing in the armpits of my tomato plants?',
    note: 'tomato-growing.md',
  },
  { question: 'How often should I water tomato plants in the vegetable patch?', note: 'tomato-growing.md' },
  // laptop security travel
  {
    question: 'I am flying to a conference next week; what should I do to keep my work laptop safe?',
    note: 'vpn-travel.md',
  },
  {
    question: 'Hey, my company notebook got stolen at the airport, who do I tell and how fast?',
    note: 'vpn-travel.md',
  },
  {
    question: 'Do I need to encrypt the hard drive before taking my computer abroad?',
    note: 'vpn-travel.md',
  },
  // sql indexes
  {
    question: 'My SELECT with a WHERE on customer_id is super slow on a big table, how do I speed it up?',
    note: 'sql-indexes.md',
  },
  { question: 'In which order should the columns of a multi-column index go?', note: 'sql-indexes.md' },
  { question: 'How can I tell whether sqlite actually uses my index for a query?', note: 'sql-indexes.md' },
  // running shoes
  {
    question: 'Good morning! How many kilometres can I run in my trainers before buying new ones?',
    note: 'running-shoes.md',
  },
  {
    question: 'I keep getting pain along my shins when jogging, could it be my old sneakers?',
    note: 'running-shoes.md',
  },
  {
    question: 'Any tips on what time of day to go shopping for new running shoes and how they should fit?',
    note: 'running-shoes.md',
  },
  // cat litter
  { question: 'My cat started peeing next to her litter tray, should I worry?', note: 'cat-litter.md' },
  { question: 'We have two kittens now — how many litter boxes do we need?', note: 'cat-litter.md' },
  { question: 'How often do you have to completely replace cat litter?', note: 'cat-litter.md' },
  // invoices
  { question: 'Hi there, how long do we have to pay a vendor bill?', note: 'invoice-payment.md' },
  {
    question: 'Finance sent back my supplier invoice, what could be missing on it?',
    note: 'invoice-payment.md',
  },
  { question: 'Who has to sign off on a 15k EUR invoice from a supplier?', note: 'invoice-payment.md' },
  // rust
  {
    question: "Rust keeps telling me 'borrowed value does not live long enough', how do I fix that?",
    note: 'rust-lifetimes.md',
  },
  {
    question: 'In Rust, should my struct hold a &str or a String to avoid lifetime errors?',
    note: 'rust-lifetimes.md',
  },
  {
    question: 'Hello! The rust compiler complains my reference outlives the data; what are my options?',
    note: 'rust-lifetimes.md',
  },
  // mould
  {
    question: 'There are black spots on the sealant around my shower, how do I get rid of them?',
    note: 'mould-bathroom.md',
  },
  { question: 'How do I stop mildew growing in the bathroom after showering?', note: 'mould-bathroom.md' },
  {
    question: 'The grout between my bathroom tiles is going black, what causes that?',
    note: 'mould-bathroom.md',
  },
  // passport
  {
    question: 'Hi, my passport expires soon; how early should I renew it before a trip?',
    note: 'passport-renewal.md',
  },
  { question: 'What documents do I bring to get a new passport?', note: 'passport-renewal.md' },
  {
    question: 'Is there a fast-track option if I need a passport in a hurry, and what does it cost?',
    note: 'passport-renewal.md',
  },
  // headphones
  {
    question: 'My wireless earbuds will not connect to my phone anymore, help!',
    note: 'headphones-pairing.md',
  },
  { question: 'How do I factory reset bluetooth earphones?', note: 'headphones-pairing.md' },
  {
    question: 'Quick one: one of my airbuds stopped pairing, what should I try?',
    note: 'headphones-pairing.md',
  },
  // sauna
  { question: 'How long should I stay in the sauna each time?', note: 'sauna.md' },
  { question: 'Hey, is it okay to jump into a cold plunge pool after a sauna session?', note: 'sauna.md' },
  { question: 'I have a heart condition, can I still use a sauna?', note: 'sauna.md' },
  // on-call
  {
    question: 'I need to trade my on call week with a colleague, how does that work?',
    note: 'oncall-rotation.md',
  },
  {
    question: 'How quickly do I have to acknowledge an alert when I am on call?',
    note: 'oncall-rotation.md',
  },
  {
    question: 'Hi! When does the oncall shift hand over, and when do I escalate an incident?',
    note: 'oncall-rotation.md',
  },
  // cast iron
  { question: 'How do I season a new cast-iron frying pan?', note: 'cast-iron.md' },
  { question: 'My skillet got rusty, can it be saved?', note: 'cast-iron.md' },
  {
    question: 'Can I put my cast iron pan in the dishwasher or let it soak overnight?',
    note: 'cast-iron.md',
  },
  // heat pump
  { question: 'Should I turn the heat pump down at night to save energy?', note: 'heat-pump.md' },
  {
    question: 'Hello, my outdoor heating unit is puffing out white clouds in winter, is it on fire?',
    note: 'heat-pump.md',
  },
  { question: 'What thermostat settings work best with an air source heat pump?', note: 'heat-pump.md' },
  // interviews
  { question: 'What are the steps of our hiring process for a new engineer?', note: 'interview-process.md' },
  {
    question: 'By when do I need to write up my feedback after interviewing a candidate?',
    note: 'interview-process.md',
  },
  {
    question: 'Hi, how long is the homework assignment we give to job applicants?',
    note: 'interview-process.md',
  },
  // kayaking
  { question: 'What should I check before going out sea kayaking?', note: 'kayaking.md' },
  { question: 'Is it safe to paddle my kayak when the wind blows off the shore?', note: 'kayaking.md' },
  { question: 'Hey! Which rescue skills should I practise before kayaking solo?', note: 'kayaking.md' },
  // 3d printing
  {
    question: "My 3D printer's first layer won't stick to the build plate, what do I do?",
    note: 'print-3d.md',
  },
  { question: 'The corners of my ABS prints keep curling up, how do I prevent it?', note: 'print-3d.md' },
  { question: 'Hi, what should I clean the print bed with?', note: 'print-3d.md' },
  // migraine
  { question: 'When is the best moment to take painkillers for a migraine attack?', note: 'migraine.md' },
  { question: 'How can I find out what sets off my headaches?', note: 'migraine.md' },
  { question: 'I get bad migranes five times a month, should I see someone?', note: 'migraine.md' },
  // typescript
  {
    question: "TypeScript says 'Object is possibly undefined' — how do I get rid of that error properly?",
    note: 'typescript-strict.md',
  },
  { question: 'Is it fine to use the ! non-null assertion everywhere in TS?', note: 'typescript-strict.md' },
  {
    question: 'Hello, how do I provide a fallback value when something might be undefined in typescript?',
    note: 'typescript-strict.md',
  },
  // moving house
  {
    question: "We're relocating next month — how far in advance should we book movers?",
    note: 'moving-house.md',
  },
  {
    question: 'After moving, how long do I have to register my new address with the municipality?',
    note: 'moving-house.md',
  },
  {
    question: 'What should I do about the electricity and gas meters on moving day?',
    note: 'moving-house.md',
  },
  // birdwatching
  { question: 'What binoculars would you recommend for a beginner birder?', note: 'birdwatching.md' },
  { question: 'Hi! When is the best time of day to spot birds?', note: 'birdwatching.md' },
  { question: 'How do I find birds that are hiding in the trees?', note: 'birdwatching.md' },
  // travel booking
  {
    question: 'Can I book my own flight for a work trip and get reimbursed?',
    note: 'expense-travel-booking.md',
  },
  {
    question: 'Am I allowed to fly business class to the client meeting in New York?',
    note: 'expense-travel-booking.md',
  },
  {
    question: 'Hey, what is the max hotel price per night on business trips?',
    note: 'expense-travel-booking.md',
  },
  // ssh
  {
    question: "I get 'Permission denied (publickey)' when connecting to the server, what's wrong?",
    note: 'ssh-keys.md',
  },
  { question: 'How do I create an ssh key pair and put it on a remote machine?', note: 'ssh-keys.md' },
  { question: 'Which file permissions should my private ssh key have?', note: 'ssh-keys.md' },
  // watercolour
  { question: 'My watercolor paper goes all wavy when I paint, how do I stop that?', note: 'watercolour.md' },
  { question: 'In watercolours, do I paint the dark or the light parts first?', note: 'watercolour.md' },
  {
    question: 'Hello! How do I get soft blurry edges versus crisp edges with watercolour?',
    note: 'watercolour.md',
  },
  // snow chains
  {
    question: 'Driving to the Alps in winter — when should I put the snow chains on?',
    note: 'snow-chains.md',
  },
  { question: 'How fast can I drive with chains fitted on my tyres?', note: 'snow-chains.md' },
  { question: 'Are winter tires mandatory in the mountains, and from when?', note: 'snow-chains.md' },
  // chickens
  { question: 'Why have my hens stopped laying eggs since autumn?', note: 'chickens.md' },
  { question: 'Hi! How do I keep foxes away from my chickens?', note: 'chickens.md' },
  {
    question: 'The eggs from my backyard flock have thin, soft shells — what should I feed them?',
    note: 'chickens.md',
  },
];

/** Questions none of the notes answers (some near a note's subject in words, not in what they ask). */
export const FLOW_OFF_TOPIC: string[] = [
  'Hi! Who won the football World Cup in 2018?',
  'What is the capital of Australia?',
  'Can you recommend a good science fiction novel?',
  'How do I make a classic French omelette?',
  'What is the best way to learn Spanish quickly?',
  'Hello, how do I file for a patent on my invention?',
  'What are the rules of cricket?',
  'How many moons does Jupiter have?',
  'Quick question: how do I tie a bow tie?',
  'Which stocks should I buy this year?',
  'How do I change a flat tyre on a bicycle?',
  'What is the difference between a violin and a viola?',
  'How do I knit a scarf for a beginner?',
  'Hey, what time zone is Tokyo in?',
  'How do I train for a chess tournament?',
  'What is the boiling point of water at altitude?',
  'Can you explain how black holes form?',
  'How do I write a haiku?',
  'What is a good name for a goldfish?',
  'How do vaccines train the immune system?',
  'Hi there, how do I make my houseplants grow faster?',
  'How do I set up a Python virtual environment?',
  'Who painted the Mona Lisa?',
  'What should I pack for a beach holiday in Greece?',
  'How does compound interest work on a savings account?',
  'Hello! How do I teach my dog to sit?',
  'How do I brew beer at home?',
];
