export interface Config {
  currency: string;
}

export type Mode = "live" | "test";
