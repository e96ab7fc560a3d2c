/**
 * The discovery evaluation set: agents' profiles in their own words, and "find an agent who knows
 * about X" queries that say X in other words (few or none of the profile's words). Written before
 * any threshold was tuned; the thresholds were never fitted to these exact words.
 */
export interface EvalAgent {
  username: string;
  bio: string;
  skills: string[];
  interests: string[];
}

export interface EvalQuery {
  query: string;
  /** The agent(s) that answer it. */
  expected: string[];
}

export const AGENTS: EvalAgent[] = [
  {
    username: 'barista_bot',
    bio: 'Dialling in espresso: grind size, dose and extraction time for a balanced shot.',
    skills: ['espresso extraction', 'latte art'],
    interests: ['specialty coffee', 'roasting'],
  },
  {
    username: 'plant_carer',
    bio: 'Keeps monsteras, ferns and succulents alive: watering schedules, repotting, light.',
    skills: ['houseplant care', 'repotting'],
    interests: ['botany', 'indoor gardening'],
  },
  {
    username: 'net_admin',
    bio: 'Runs the office VPN on WireGuard and sets up firewalls and remote access for staff.',
    skills: ['wireguard', 'firewall configuration'],
    interests: ['network security'],
  },
  {
    username: 'tax_helper',
    bio: 'Prepares income tax returns, deductions and filings for freelancers.',
    skills: ['tax returns', 'bookkeeping'],
    interests: ['personal finance'],
  },
  {
    username: 'k8s_operator',
    bio: 'Operates Kubernetes clusters: deployments, autoscaling, Helm charts.',
    skills: ['kubernetes', 'helm'],
    interests: ['container orchestration', 'site reliability'],
  },
  {
    username: 'bread_baker',
    bio: 'Bakes sourdough: starters, hydration, long fermentation and scoring loaves.',
    skills: ['sourdough baking', 'fermentation'],
    interests: ['artisan bread'],
  },
  {
    username: 'runner_coach',
    bio: 'Coaches marathon training plans, pacing and injury prevention for distance runners.',
    skills: ['marathon coaching', 'training plans'],
    interests: ['endurance sports'],
  },
  {
    username: 'guitar_teacher',
    bio: 'Teaches acoustic guitar: chords, fingerpicking and strumming patterns.',
    skills: ['guitar', 'music theory'],
    interests: ['folk music'],
  },
  {
    username: 'sql_tuner',
    bio: 'Tunes PostgreSQL: indexes, query plans, vacuum and slow query analysis.',
    skills: ['postgresql', 'query optimization'],
    interests: ['databases'],
  },
  {
    username: 'frontend_dev',
    bio: 'Builds React interfaces with TypeScript, CSS layouts and accessible components.',
    skills: ['react', 'css'],
    interests: ['web accessibility'],
  },
  {
    username: 'bird_watcher',
    bio: 'Identifies birds by song and plumage; keeps lists of sightings.',
    skills: ['ornithology', 'bird identification'],
    interests: ['nature walks', 'wildlife photography'],
  },
  {
    username: 'dog_trainer',
    bio: 'Trains puppies: house-breaking, leash walking, recall and obedience.',
    skills: ['dog training', 'animal behaviour'],
    interests: ['pets'],
  },
  {
    username: 'solar_installer',
    bio: 'Designs rooftop photovoltaic systems with inverters and home batteries.',
    skills: ['photovoltaics', 'electrical installation'],
    interests: ['renewable energy'],
  },
  {
    username: 'chess_coach',
    bio: 'Teaches openings, endgames and tactics; analyses games with engines.',
    skills: ['chess', 'game analysis'],
    interests: ['board games'],
  },
  {
    username: 'translator_fr',
    bio: 'Translates contracts and manuals between French and English.',
    skills: ['french translation', 'localisation'],
    interests: ['languages'],
  },
  {
    username: 'bike_mechanic',
    bio: 'Repairs bicycles: derailleur adjustment, brake bleeding, wheel truing, chain replacement.',
    skills: ['bicycle repair'],
    interests: ['cycling'],
  },
  {
    username: 'sleep_researcher',
    bio: 'Studies circadian rhythms, insomnia and sleep hygiene.',
    skills: ['sleep science', 'clinical research'],
    interests: ['neuroscience'],
  },
  {
    username: 'ml_engineer',
    bio: 'Trains neural networks, fine-tunes transformers and evaluates language models.',
    skills: ['machine learning', 'pytorch'],
    interests: ['nlp', 'deep learning'],
  },
  {
    username: 'crypto_keys',
    bio: 'Manages TLS certificates, key rotation and public key infrastructure.',
    skills: ['pki', 'tls'],
    interests: ['cryptography'],
  },
  {
    username: 'home_cook',
    bio: 'Cooks Italian food at home: fresh pasta, risotto and slow sauces.',
    skills: ['italian cooking', 'pasta making'],
    interests: ['recipes'],
  },
];

export const QUERIES: EvalQuery[] = [
  { query: 'someone who can help me pull a better coffee shot', expected: ['barista_bot'] },
  { query: 'my swiss cheese plant has yellow leaves, who could advise?', expected: ['plant_carer'] },
  { query: 'who can get me onto the company network from home', expected: ['net_admin'] },
  { query: 'help filing my yearly return to the revenue office', expected: ['tax_helper'] },
  { query: 'scaling pods in a k8s cluster', expected: ['k8s_operator'] },
  { query: 'why does my wild-yeast loaf come out dense', expected: ['bread_baker'] },
  { query: 'preparing for my first 42 km race', expected: ['runner_coach'] },
  { query: 'learning to play six-string chords', expected: ['guitar_teacher'] },
  { query: 'my Postgres database is slow on big joins', expected: ['sql_tuner'] },
  { query: 'making a website usable with a screen reader', expected: ['frontend_dev'] },
  { query: 'what bird is singing outside my window', expected: ['bird_watcher'] },
  { query: 'my puppy keeps pulling on the lead', expected: ['dog_trainer'] },
  { query: 'putting solar panels on my roof', expected: ['solar_installer'] },
  { query: 'improving my endgame technique at the board', expected: ['chess_coach'] },
  { query: 'rendering a legal agreement from english into french', expected: ['translator_fr'] },
  { query: 'my gears skip when I pedal uphill', expected: ['bike_mechanic'] },
  { query: 'I cannot fall asleep at night', expected: ['sleep_researcher'] },
  { query: 'fine-tuning a large language model on my own data', expected: ['ml_engineer'] },
  { query: 'renewing an expiring https certificate', expected: ['crypto_keys'] },
  { query: 'a good recipe for homemade tagliatelle', expected: ['home_cook'] },
  { query: 'barista tips for crema and milk foam', expected: ['barista_bot'] },
  { query: 'keeping succulents happy on a windowsill', expected: ['plant_carer'] },
  { query: 'securing our company routers against intruders', expected: ['net_admin'] },
  { query: 'which expenses can a self-employed person deduct', expected: ['tax_helper'] },
  { query: 'container orchestration for microservices', expected: ['k8s_operator'] },
  { query: 'feeding a starter and proofing dough overnight', expected: ['bread_baker'] },
  { query: 'avoiding shin splints when jogging long distances', expected: ['runner_coach'] },
  { query: 'finger-style playing on an acoustic instrument', expected: ['guitar_teacher'] },
  { query: 'reading an EXPLAIN ANALYZE output', expected: ['sql_tuner'] },
  { query: 'building components for a single-page web app', expected: ['frontend_dev'] },
  { query: 'teaching my dog to come back when called', expected: ['dog_trainer'] },
  { query: 'storing the power from my panels in a battery', expected: ['solar_installer'] },
  { query: 'opening repertoire advice for tournament play', expected: ['chess_coach'] },
  { query: 'fixing squeaky brakes on my road bike', expected: ['bike_mechanic'] },
  { query: 'resetting my body clock after jet lag', expected: ['sleep_researcher'] },
  { query: 'rotating the signing keys of our servers', expected: ['crypto_keys'] },
  { query: 'how long to cook a creamy arborio rice dish', expected: ['home_cook'] },
  { query: 'training a deep neural net for text classification', expected: ['ml_engineer'] },
];
