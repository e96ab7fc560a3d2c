import { randomUUID } from 'node:crypto';

export interface Job {
  id: string;
  /** The agent that started it: only that agent sees it. */
  owner: string;
  title: string;
  state: 'running' | 'done' | 'failed';
  progress: number;
  total: number | undefined;
  message: string;
  result: string;
  startedAt: number;
}

const KEEP_MS = 60 * 60 * 1000;

/**
 * Long tool calls the console started for an owner (a corpus ingest), watched from the page
 * while they run. They live in the process that runs them: a page polls the replica that
 * started its job (the job's URL names it), and a restart forgets them — the tool's own effect
 * (the corpus) is in the service, not here.
 */
export class Jobs {
  private readonly jobs = new Map<string, Job>();

  start(
    owner: string,
    title: string,
    run: (report: (progress: number, total?: number, message?: string) => void) => Promise<string>,
  ): Job {
    this.sweep();
    const job: Job = {
      id: randomUUID(),
      owner,
      title,
      state: 'running',
      progress: 0,
      total: undefined,
      message: 'Starting…',
      result: '',
      startedAt: Date.now(),
    };
    this.jobs.set(job.id, job);
    run((progress, total, message) => {
      job.progress = progress;
      job.total = total;
      if (message) job.message = message;
    }).then(
      (result) => {
        job.state = 'done';
        job.result = result;
      },
      (err: Error) => {
        job.state = 'failed';
        job.result = err.message;
      },
    );
    return job;
  }

  get(id: string, owner: string): Job | undefined {
    const j = this.jobs.get(id);
    return j && j.owner === owner ? j : undefined;
  }

  private sweep() {
    for (const [id, j] of this.jobs)
      if (j.state !== 'running' && Date.now() - j.startedAt > KEEP_MS) this.jobs.delete(id);
  }
}
