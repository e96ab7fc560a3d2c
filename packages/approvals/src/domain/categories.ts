/**
 * The few broad words conditions use for topics and askers, spelled out as the terms that
 * stand for them. Deliberately short: a word outside these lists is matched as itself, and
 * the add-time explanation shows exactly which terms are used.
 */
export interface Category {
  label: string;
  terms: string[];
}

const SCIENCE: Category = {
  label: 'science',
  terms: [
    'science',
    'scientific',
    'scientist',
    'physics',
    'physicist',
    'chemistry',
    'chemical',
    'biology',
    'biological',
    'quantum',
    'astronomy',
    'astrophysics',
    'cosmology',
    'mathematics',
    'math',
    'maths',
    'genetics',
    'genome',
    'neuroscience',
    'geology',
    'ecology',
    'climate',
    'evolution',
    'molecule',
    'molecular',
    'particle',
    'experiment',
    'hypothesis',
    'laboratory',
    'qubit',
    'relativity',
    'thermodynamics',
    'protein',
    'vaccine',
    'entanglement',
    'black hole',
    'gravity',
    'gravitational',
    'atom',
    'atomic',
    'electron',
    'photon',
    'entropy',
    'radiation',
    'galaxy',
    'spacetime',
  ],
};

const PROGRAMMING: Category = {
  label: 'programming',
  terms: [
    'programming',
    'programmer',
    'code',
    'coding',
    'software',
    'python',
    'javascript',
    'typescript',
    'java',
    'rust',
    'golang',
    'kotlin',
    'swift',
    'ruby',
    'php',
    'compiler',
    'algorithm',
    'bug',
    'debug',
    'debugging',
    'api',
    'framework',
    'git',
    'sql',
    'database',
    'refactor',
    'refactoring',
    'script',
    'scripting',
    'recursion',
    'runtime',
    'frontend',
    'backend',
    'devops',
    'kubernetes',
    'docker',
    'npm',
    'regex',
    'async',
    'linter',
  ],
};

const ACADEMIC: Category = {
  label: 'academic',
  terms: [
    'academic',
    'academia',
    'university',
    'professor',
    'phd',
    'postdoc',
    'postdoctoral',
    'lecturer',
    'researcher',
    'scholar',
    'faculty',
    'doctoral',
    'doctorate',
    'college',
    'institute',
    'scientist',
    'student',
  ],
};

const DEVELOPER: Category = {
  label: 'developer',
  terms: ['developer', 'engineer', 'programmer', 'software', 'coder', 'programming'],
};

const MEDICINE: Category = {
  label: 'medicine',
  terms: [
    'medicine',
    'medical',
    'health',
    'clinical',
    'doctor',
    'disease',
    'patient',
    'drug',
    'therapy',
    'diagnosis',
  ],
};

const FINANCE: Category = {
  label: 'finance',
  terms: [
    'finance',
    'financial',
    'money',
    'investment',
    'invest',
    'stock',
    'bank',
    'banking',
    'salary',
    'tax',
    'budget',
  ],
};

/** Topic words: what a question is about. */
export const TOPIC_CATEGORIES: Record<string, Category> = {
  science: SCIENCE,
  sciences: SCIENCE,
  scientific: SCIENCE,
  programming: PROGRAMMING,
  coding: PROGRAMMING,
  code: PROGRAMMING,
  software: PROGRAMMING,
  medicine: MEDICINE,
  medical: MEDICINE,
  health: MEDICINE,
  finance: FINANCE,
  financial: FINANCE,
  money: FINANCE,
};

/** Trait words: what an asker's profile shows. */
export const TRAIT_CATEGORIES: Record<string, Category> = {
  academic: ACADEMIC,
  academics: ACADEMIC,
  academia: ACADEMIC,
  scholarly: ACADEMIC,
  researcher: {
    label: 'researcher',
    terms: ['researcher', 'research', 'scientist', 'postdoc', 'phd', 'professor'],
  },
  developer: DEVELOPER,
  engineer: DEVELOPER,
  programmer: DEVELOPER,
  scientist: {
    label: 'scientist',
    terms: ['scientist', 'researcher', 'physicist', 'chemist', 'biologist', 'science'],
  },
  student: { label: 'student', terms: ['student', 'undergraduate', 'graduate', 'phd'] },
};
